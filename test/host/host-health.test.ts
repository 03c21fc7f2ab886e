import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../adapters/http";
import { startHost } from "../../adapters/cli/host";
import { createMemoryStorage } from "../../adapters/memory";
import { testWorld } from "../support/engine";
import { storageKinds } from "../support/storage";

/** Issue 13: `/healthz` and `/readyz` without an API key. */
describe("health and readiness", () => {
  it("answers both without a key on the host, and readyz turns 503 while it drains", async () => {
    const host = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false });
    const healthz = await fetch(`${host.url}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.json()).toEqual({ status: "ok" });
    const readyz = await fetch(`${host.url}/readyz`);
    expect(readyz.status).toBe(200);
    const body = await readyz.json();
    expect(body.status).toBe("ready");
    expect(body.checks).toMatchObject({ storage: { ok: true }, migrations: { ok: true }, workers: { ok: true } });
    expect(healthz.headers.get("request-id")).toBeNull(); // outside the API: not counted, no request id
    const stopping = host.stop();
    await stopping;
    await expect(fetch(`${host.url}/healthz`)).rejects.toThrow(); // the port is closed
  });

  it("says not ready, with the failing check, when the workers are not running or storage is gone", async () => {
    // memory only: the checks use the storage port alone, and PGlite takes seconds to open
    for (const kind of storageKinds().slice(0, 1)) {
      const w = await testWorld(kind);
      const app = createHttpApp(w.engine, { health: true });
      try {
        let res = await app.request("/readyz");
        expect(res.status).toBe(503);
        expect(await res.json()).toMatchObject({ status: "not_ready", checks: { storage: { ok: true }, migrations: { ok: true }, workers: { ok: false } } });
        w.engine.worker.start();
        res = await app.request("/readyz");
        expect(res.status, kind.name).toBe(200);
        await w.engine.close();
        res = await app.request("/readyz");
        expect(res.status).toBe(503);
        const checks = (await res.json()).checks;
        expect(checks.storage.ok).toBe(false);
        expect(checks.workers.ok).toBe(false);
        expect((await app.request("/healthz")).status).toBe(200);
      } finally {
        await w.harness.close();
      }
    }
  });

  it("serves neither route unless asked (an embedding host opts in)", async () => {
    const w = await testWorld(storageKinds()[0]!);
    try {
      expect((await createHttpApp(w.engine).request("/healthz")).status).toBe(404);
    } finally {
      await w.close();
    }
  });
});
