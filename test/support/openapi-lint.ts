import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = resolve(__dirname, "../..");
const OPENAPI_DIR = join(ROOT, "test/openapi");

/** Child processes get no DATABASE_URL (docs/testing.md), and Redocly neither phones home nor nags. */
export const CHILD_ENV = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_COLOR: "1",
};

/** Redocly's recommended rules (test/openapi/redocly.yaml) over `doc`: its problems, its totals and the linter's version. */
export async function redoclyLint(doc: unknown): Promise<{ problems: string[]; totals: { errors: number; warnings: number }; version: string }> {
  const dir = mkdtempSync(join(tmpdir(), "payrail-openapi-"));
  try {
    writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc, null, 2));
    copyFileSync(join(OPENAPI_DIR, "redocly.yaml"), join(dir, "redocly.yaml"));
    copyFileSync(join(OPENAPI_DIR, ".redocly.lint-ignore.yaml"), join(dir, ".redocly.lint-ignore.yaml"));
    const cli = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");
    const { stdout } = await run(process.execPath, [cli, "lint", "openapi.json", "--format=json"], { cwd: dir, env: CHILD_ENV }).catch(
      (e: { stdout?: string; stderr?: string }) => {
        throw new Error(`redocly lint failed:\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
      },
    );
    const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    return { problems, totals: report.totals, version: report.version };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
