import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli, stripAnsi } from "../support/cli";

/**
 * Issue 27: the README and docs, followed literally, did not work (a key exported as one name
 * and sent as another, a swap without its required Idempotency-Key, curls without Content-Type,
 * a CLI that could not find a host on another port). Here every shell block of README.md and
 * docs/*.md runs, in document order, against one host started as `npm start` starts it (on a
 * free port other than 4000, in a fresh data folder), and no command may fail or answer 4xx/5xx.
 *
 * How a block is read:
 * - `<!-- docs-commands: skip (why) -->` on the line before a block leaves it out (it starts a
 *   host of its own, or needs a real chain); `<!-- docs-commands: expect-error -->` makes each
 *   command of the block one that must be refused (4xx).
 * - `export PAYRAIL_URL=… PAYRAIL_API_KEY=…` is what `npm start` printed: the line the host
 *   printed after `try:` is run in its place (so the printed line is tested too).
 * - A placeholder `<prefix>_…` (`rcp_…`, `qt_…`) is the id of that prefix the commands before it
 *   answered last (an answer's own id comes first in it); `<url>` is the last `url` an answer
 *   held. A GET that answers `"status":"pending"` is repeated until it is not (the docs say poll).
 * - `npx payrail …` runs the CLI's program in this process (what `npx payrail` runs, without a
 *   Node start per line); commands that run until Ctrl-C (`listen`, `… tail`) are stopped
 *   after their first lines, which must not read like an error, and must exit 0.
 * - Every other line runs in bash in a scratch folder of the clone; curl gets `--fail-with-body`
 *   from a `.curlrc`, so an answer of 400 or more fails the command.
 */
const run = promisify(execFile);
const FILES = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const LONG_RUNNING = /^npx payrail (listen|events tail|deliveries tail|logs tail)\b/;

interface Block {
  file: string;
  line: number;
  mode: "run" | "skip" | "expect-error";
  commands: string[];
}

/** The shell blocks of a Markdown file, each as its logical lines (continuations joined, comment-only lines dropped). */
function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(REPO, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash)\s*$/.test(lines[i]!)) continue;
    const marker = /<!--\s*docs-commands:\s*(skip|expect-error)\b/.exec(lines[i - 1] ?? "")?.[1];
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
    const commands: string[] = [];
    let current = "";
    for (const raw of body) {
      if (current === "" && /^\s*(#.*)?$/.test(raw)) continue;
      if (raw.endsWith("\\")) {
        current += `${raw.slice(0, -1)} `;
        continue;
      }
      commands.push(current + raw);
      current = "";
    }
    blocks.push({ file, line: start + 1, mode: marker === "skip" ? "skip" : marker === "expect-error" ? "expect-error" : "run", commands });
  }
  return blocks;
}

/** The command without its trailing comment (a `#` after whitespace, outside quotes). */
function withoutComment(command: string): string {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "#" && (i === 0 || /\s/.test(command[i - 1]!))) return command.slice(0, i).trimEnd();
  }
  return command;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => (port === 4000 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

describe("every command of the README and docs runs as written", () => {
  let host: ChildProcess;
  let printed = "";
  let scratch: string;
  const env: Record<string, string> = {};
  const ids = new Map<string, string>();
  let lastUrl: string | null = null;

  beforeAll(async () => {
    scratch = await mkdtemp(join(REPO, ".docs-commands-"));
    await writeFile(join(scratch, ".curlrc"), "fail-with-body\nsilent\nshow-error\n");
    const port = await freePort();
    // what `npm start` runs, with the environment a fresh clone has
    host = spawn(process.execPath, ["--import", "tsx", "adapters/cli/main.ts", "serve"], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), PAYRAIL_DATA_DIR: join(scratch, "data"), LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    host.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    host.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    const started = Date.now();
    while (!/^try: (export .*)$/m.test(printed)) {
      if (host.exitCode !== null || Date.now() - started > 90_000) throw new Error(`the host did not start:\n${printed}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(printed).toContain(`http://127.0.0.1:${port}`);
  }, 120_000);

  afterAll(async () => {
    if (host && host.exitCode === null) {
      const exited = new Promise((r) => host.once("exit", r));
      host.kill("SIGTERM");
      await exited;
    }
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** Sets what an `export` line names, as bash would. */
  async function exportLine(line: string): Promise<void> {
    const names = [...line.matchAll(/\b([A-Z_][A-Z0-9_]*)=/g)].map((m) => m[1]!);
    const { stdout } = await run("bash", ["-c", `${line}\nfor n in ${names.join(" ")}; do printf '%s\\0%s\\0' "$n" "\${!n}"; done`], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    const parts = stdout.split("\0");
    for (let i = 0; i + 1 < parts.length; i += 2) env[parts[i]!] = parts[i + 1]!;
  }

  /** Ids and urls an answer holds, for the placeholders of the commands after it. */
  function remember(output: string): void {
    const seen = new Set<string>();
    for (const m of output.matchAll(/\b([a-z]+)_[0-9a-z]{26}\b/g)) {
      if (seen.has(m[1]!)) continue;
      seen.add(m[1]!);
      ids.set(m[1]!, m[0]);
    }
    const url = /"url"\s*:\s*"([^"]+)"/.exec(output)?.[1];
    if (url) lastUrl = url;
  }

  function substitute(command: string, where: string): string {
    const bare = withoutComment(command);
    const filled = bare
      .replace(/\b([a-z]+)_…/g, (placeholder, prefix: string) => {
        const id = ids.get(prefix);
        if (!id) throw new Error(`${where}: no answer before it held a ${prefix}_ id for ${placeholder}`);
        return id;
      })
      .replace(/<url>/g, () => {
        if (!lastUrl) throw new Error(`${where}: no answer before it held a url`);
        return lastUrl;
      });
    if (filled.includes("…")) throw new Error(`${where}: a placeholder the test cannot fill: ${bare}`);
    return filled;
  }

  async function runCliLine(command: string, where: string): Promise<void> {
    // the words as bash splits them, with the variables the docs exported
    const { stdout } = await run("bash", ["-c", `printf '%s\\0' ${command.replace(/^npx payrail\s+/, "")}`], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    const argv = stdout.split("\0").slice(0, -1);
    const cwd = process.cwd();
    process.chdir(scratch); // files the command writes (--out) land in the scratch folder
    try {
      const cli = runCli(argv, { ...env });
      if (LONG_RUNNING.test(command)) {
        await cli.waitFor(/Ready!|tailing|\n/, 30_000);
        const first = stripAnsi(cli.stderr + cli.stdout).split("\n")[0]!;
        expect(first, `${where}: its first line reads like an error`).not.toMatch(/refus|error|cannot|denied|unreachable/i);
        await cli.waitFor(/Ready!|tailing/, 30_000);
        expect(await cli.stop(), `${where}:\n${cli.stderr}`).toBe(0);
      } else {
        expect(await cli.done, `${where}:\n${cli.stdout}\n${cli.stderr}`).toBe(0);
      }
      remember(cli.stdout + cli.stderr);
    } finally {
      process.chdir(cwd);
    }
  }

  async function runShellLine(command: string, where: string, expectError: boolean): Promise<void> {
    const shell = () =>
      run("bash", ["-c", command], {
        cwd: scratch,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CURL_HOME: scratch, ...env },
        maxBuffer: 64 * 1024 * 1024,
      }).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
      );
    let result = await shell();
    // a GET of something still being made is polled, as the docs say
    for (let i = 0; i < 60 && result.code === 0 && !/-X\s+POST/.test(command) && /"status"\s*:\s*"pending"/.test(result.out); i++) {
      await new Promise((r) => setTimeout(r, 250));
      result = await shell();
    }
    if (expectError) expect(result.code, `${where}: expected a refusal\n${result.out}`).toBe(22);
    else expect(result.code, `${where} failed:\n${result.out}`).toBe(0);
    remember(result.out);
  }

  it("runs every shell block, in order, with no failure and no 4xx or 5xx", async () => {
    const ran: string[] = [];
    for (const file of FILES) {
      for (const block of shellBlocks(file)) {
        if (block.mode === "skip") continue;
        for (const [n, command] of block.commands.entries()) {
          const where = `${block.file}:${block.line} (command ${n + 1}: ${command.trim().slice(0, 80)})`;
          if (/^\s*export\s+PAYRAIL_(URL|API_KEY)=/.test(command)) {
            // what npm start printed, in place of the docs' example values
            const line = /^try: (export .*)$/m.exec(printed)![1]!;
            for (const name of [...withoutComment(command).matchAll(/\b([A-Z_]+)=/g)].map((m) => m[1]!)) {
              expect(line, `${where}: npm start's try: line sets ${name}`).toContain(`${name}=`);
            }
            await exportLine(line);
            ran.push(where);
            continue;
          }
          const filled = substitute(command, where);
          if (/^npx payrail\b/.test(filled)) await runCliLine(filled, where);
          else await runShellLine(filled, where, block.mode === "expect-error");
          ran.push(where);
        }
      }
    }
    // the README's walk-through and the docs' examples were all reached
    expect(ran.filter((w) => w.startsWith("README.md")).length).toBeGreaterThan(15);
    expect(ran.some((w) => w.startsWith("docs/testing-your-integration.md"))).toBe(true);
    expect(ran.some((w) => w.startsWith("docs/cli.md"))).toBe(true);
  }, 300_000);

  it("the README's printed try: line works as printed", async () => {
    const lines = /^try: (.*)\n((?: {5}.*\n)*)/m.exec(printed)!;
    const script = [lines[1]!, ...lines[2]!.split("\n").map((l) => l.trim())].filter((l) => l && !l.startsWith("npx payrail listen")).join("\n");
    const { stdout } = await run("bash", ["-c", `set -e\n${script}`], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CURL_HOME: scratch },
    });
    expect(JSON.parse(stdout)).toMatchObject({ object: "list" });
  });

  it("the README's Embedding snippet runs from a clone without a build or a database server", async () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const snippet = /## Embedding[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    await writeFile(join(scratch, "embed.ts"), snippet);
    const { PATH, HOME } = process.env;
    const { stdout } = await run("npx", ["tsx", "embed.ts"], { cwd: scratch, env: { PATH: PATH ?? "", HOME: HOME ?? "" } });
    expect(stdout).toMatch(/^po_[0-9a-z]{26} (executing|settled)$/m);
    expect(stdout).toMatch(/^200$/m);
  }, 60_000);
});
