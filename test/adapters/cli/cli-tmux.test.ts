import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { REPO, eventually } from "../../support/cli";

const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Issue 13: the interactive output in a real terminal (tmux gives the command a TTY). */
describe.skipIf(!hasTmux)("payrail in a terminal (tmux)", () => {
  let host: RunningHost;
  const session = `payrail-test-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
  /** The pane as the terminal shows it, colour escapes included (-e). */
  const pane = () => tmux("capture-pane", "-p", "-e", "-t", session);

  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false });
  });
  afterAll(async () => {
    try {
      tmux("kill-session", "-t", session);
    } catch {
      // already gone
    }
    await host.stop();
  });

  it("events tail colours each event by what it says and stops on Ctrl-C", async () => {
    const command = [
      `cd ${REPO}`,
      `PAYRAIL_URL=${host.url} PAYRAIL_API_KEY=${host.apiKey} TERM=xterm-256color ${process.execPath} --import tsx adapters/cli/main.ts events tail`,
      "echo exited:$?",
      "sleep 60",
    ].join("; ");
    tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "20", command);
    await eventually(() => pane().includes("Ctrl-C to stop"), 30_000, "the tail to start");
    const trigger = (type: string) =>
      fetch(`${host.url}/v1/test_helpers/events/trigger`, {
        method: "POST",
        headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ type }),
      }).then((r) => r.json() as Promise<{ id: string }>);
    const settled = await trigger("payout.settled");
    const failed = await trigger("swap.failed");
    const screen = await eventually(() => (pane().includes(failed.id) ? pane() : null), 15_000, "the events on screen");
    const line = (id: string) => screen.split("\n").find((l) => l.includes(id))!;
    // green for an outcome reached, red for one lost (SGR 32 and 31), the resource in bold (SGR 1)
    expect(line(settled.id)).toMatch(/^\d\d:\d\d:\d\d\.\d{3}.*\u001b\[32mpayout\.settled/);
    expect(line(failed.id)).toMatch(/\u001b\[31mswap\.failed/);
    expect(line(failed.id)).toMatch(/\u001b\[1msw_[0-9a-z]+/);
    expect(screen.indexOf(settled.id)).toBeLessThan(screen.indexOf(failed.id)); // oldest first
    tmux("send-keys", "-t", session, "C-c");
    expect(await eventually(() => /exited:(\d+)/.exec(pane()), 15_000, "the tail to exit")).toMatchObject({ 1: "0" });
  });
});
