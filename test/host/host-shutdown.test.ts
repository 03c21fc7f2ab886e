import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok } from "neverthrow";
import { describe, expect, it } from "vitest";
import { startHost } from "../../adapters/cli/host";
import { MemoryStorage } from "../../adapters/memory";
import { runCommand } from "../../src/engine/command";
import { systemContext } from "../../src/engine/context";
import { engineDeps } from "../../src/engine/engine";
import { s } from "../../src/validation/schema";
import { defineWork } from "../../src/workers/due-work";
import { REPO, eventually, exited } from "../support/cli";

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Whether something can listen on `port` again. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  const free = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (free) await new Promise<void>((r) => server.close(() => r()));
  return free;
}

/** The processes left in process group `pgid`. */
function processesOf(pgid: number): string[] {
  try {
    return execFileSync("ps", ["-o", "pid=,args=", "-g", String(pgid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean);
  } catch {
    return []; // ps exits 1 when the group is empty
  }
}

/** Issue 13: `kill <pid of npm start>` stops the server: no process left, the port free. */
describe("clean shutdown of npm start", () => {
  it.concurrent.each(["SIGTERM", "SIGINT"] as const)(
    "%s to the npm process leaves no process and frees the port",
    async (signal) => {
      const dataDir = await mkdtemp(join(tmpdir(), "payrail-shutdown-"));
      const port = await freePort();
      // its own process group, so every process it started can be found afterwards
      const npm = spawn("npm", ["start"], {
        cwd: REPO,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), PAYRAIL_DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      });
      let output = "";
      npm.stdout!.on("data", (c: Buffer) => (output += c.toString()));
      npm.stderr!.on("data", (c: Buffer) => (output += c.toString()));
      try {
        await eventually(() => output.includes(`listening on http://127.0.0.1:${port}`), 60_000, "npm start to listen");
        expect(await portIsFree(port)).toBe(false);
        expect(processesOf(npm.pid!).length).toBeGreaterThanOrEqual(2); // npm and the server (no shell between)
        process.kill(npm.pid!, signal);
        expect(await exited(npm)).toBe(0); // the server shut down cleanly, and npm exits with its code
      } catch (e) {
        throw new Error(`${String(e)}\n--- output of npm start ---\n${output}`);
      } finally {
        await eventually(() => processesOf(npm.pid!).length === 0, 10_000, "every process of npm start to exit").catch(() => {
          for (const line of processesOf(npm.pid!)) process.kill(Number(line.trim().split(" ")[0]), "SIGKILL");
          throw new Error(`processes were left: ${processesOf(npm.pid!).join("; ")}`);
        });
        await rm(dataDir, { recursive: true, force: true });
      }
      expect(await portIsFree(port)).toBe(true);
      expect(output).toMatch(/shutting down\nstopped in \d+ ms/);
    },
    90_000,
  );
});

describe("the host's shutdown", () => {
  it("answers waiting lists at once, finishes within the grace, and gives back the lease of work still running", async () => {
    const storage = new MemoryStorage();
    const host = await startHost({ port: 0, storage, metrics: false, shutdownGraceMs: 300 });
    let started = false;
    host.engine.worker.register("test.hang", async () => {
      started = true;
      await new Promise(() => undefined); // never finishes
    });
    await runCommand(engineDeps(host.engine), systemContext(host.accountId, false), async (uow) => {
      uow.schedule(defineWork("test.hang", s.object({})), {});
      return ok(null);
    });
    await eventually(() => started, 10_000, "the item to start");
    const since = new Date(Date.now() + 60_000).toISOString();
    const waiting = fetch(`${host.url}/v1/events?created_gte=${since}&wait=30`, { headers: { authorization: `Bearer ${host.apiKey}` } });
    await new Promise((r) => setTimeout(r, 100));
    const began = Date.now();
    const report = await host.stop();
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(report.leasesReleased).toBe(1);
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect((await answered.json()).data).toEqual([]);
    const [item] = (await storage.transaction((tx) => tx.work.stats(Date.now()))).filter((k) => k.kind === "test.hang");
    expect(item).toMatchObject({ leased: 0, due: 1 }); // claimable by another process now
    expect(await host.stop()).toBe(report); // once
  });
});
