import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FileBlobStore } from "../../../adapters/blobs";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { engineDeps } from "../../../src/engine/engine";
import { REPORT_BUILD_ATTEMPTS } from "../../../src/resources/reports/reports-service";
import { csvAttachment, ledgerRow, parseCsv } from "../../support/csv";
import { testWorld, type TestWorld } from "../../support/engine";
import { startLoopbackS3, type LoopbackS3 } from "../../support/s3-server";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const ADDRESSES = { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", solana: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" };
const LEDGER_COLUMNS = ["id", "created", "asset", "chain", "balance_type", "amount", "resource", "resource_metadata"];
const PAYOUT_COLUMNS = ["payout", "leg", "chain", "asset", "amount", "fee", "balance_type", "ledger_entry", "created", "metadata"];

/** Base units of a USDC decimal string (6 decimals), signed. */
const micro = (v: string) => {
  const negative = v.startsWith("-");
  const [i, f = ""] = (negative ? v.slice(1) : v).split(".");
  const units = BigInt(i! + f.padEnd(6, "0"));
  return negative ? -units : units;
};

afterAll(() => closeSharedStorage());

/** Files on disk, with a switch that makes every put fail (a full disk). */
class SwitchableFileStore extends FileBlobStore {
  failWith: Error | null = null;
  override put(...args: Parameters<FileBlobStore["put"]>) {
    return this.failWith ? Promise.reject(this.failWith) : super.put(...args);
  }
}

for (const kind of storageKinds()) {
  describe(`reports over HTTP on ${kind.name}, files on disk`, () => {
    let w: TestWorld;
    let sim: SimulatedChains;
    let directory: string;
    let blobs: SwitchableFileStore;
    let key = 0;

    beforeEach(async () => {
      const clock = new ManualClock();
      sim = new SimulatedChains({
        clock,
        chains: { base: { liquidity: { USDC: "100000" } }, solana: { liquidity: { USDC: "100" } } },
      });
      directory = await mkdtemp(join(tmpdir(), "payrail-reports-"));
      blobs = new SwitchableFileStore({ directory });
      // pages of 3 entries, so every report here is built from many pages
      w = await testWorld(kind, { clock, chainAdapters: [sim], blobs, config: { reportPageSize: 3 } });
    });
    afterEach(async () => {
      await w.close();
      await rm(directory, { recursive: true, force: true });
    });

    const post = (path: string, body?: unknown) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${key++}` } });
    const get = (path: string) => w.request("GET", path);
    const advance = (seconds: number) => post("/v1/test_helpers/clock/advance", { seconds });
    const fund = (chain: string, amount: string) => post("/v1/test_helpers/balances/fund", { asset: "USDC", chain, amount });
    const usdc = async () => (await json(await get("/v1/balances"))).data.find((b: any) => b.asset === "USDC");
    const payout = async (amount: string, rcp: string) => json(await post("/v1/payouts", { amount, asset: "USDC", recipient: rcp }));
    const now = () => new Date(w.clock.now()).toISOString();
    /** Every page of a list, following next_cursor. */
    const all = async (path: string) => {
      const out: any[] = [];
      let cursor: string | null = null;
      do {
        const sep = path.includes("?") ? "&" : "?";
        const page = await json(await get(`${path}${sep}limit=2${cursor ? `&starting_after=${cursor}` : ""}`));
        out.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      return out;
    };
    /** Downloads a URL through the app, without an API key. */
    const download = (url: string) => {
      const { pathname, search } = new URL(url, "http://localhost");
      return w.app.request(pathname + search);
    };
    const ready = async (id: string) => {
      await w.engine.worker.runDue();
      const report = await json(await get(`/v1/reports/${id}`));
      expect(report.status).toBe("ready");
      return report;
    };

    /**
     * Payouts before the window, inside it (settled, split, failed) and after it; funding inside.
     * Returns the window and the balances at its two ends.
     */
    async function history() {
      const rcp = (await json(await post("/v1/recipients", { name: "Alice", chain_addresses: { base: ADDRESSES.base } }))).id as string;
      const both = (await json(await post("/v1/recipients", { name: "Bob", chain_addresses: ADDRESSES }))).id as string;
      await fund("base", "1000");
      await fund("solana", "80");
      const before = await payout("10", rcp);
      await advance(10);
      const gte = now();
      const atStart = await usdc();
      await advance(1);
      const settled = await payout("20", rcp);
      sim.failNext("base");
      const failed = await payout("5", rcp);
      const split = await payout("1000", both); // more than base holds now: legs on base and solana
      expect(split.legs.map((l: any) => l.chain).sort()).toEqual(["base", "solana"]);
      await fund("base", "7.5");
      await advance(10);
      const lt = now();
      const atEnd = await usdc();
      await advance(1);
      const after = await payout("3", rcp);
      await advance(10);
      return { gte, lt, atStart, atEnd, payouts: { before, settled, split, failed, after } };
    }

    it("builds a ledger_entries report: pending at once, then ready; the file is the window's entries, row for row", async () => {
      const h = await history();
      const created = await post("/v1/reports", { type: "ledger_entries", created_gte: h.gte, created_lt: h.lt, format: "csv" });
      expect(created.status).toBe(200);
      const pending = await json(created);
      expect(pending).toMatchObject({
        object: "report",
        type: "ledger_entries",
        status: "pending",
        format: "csv",
        parameters: { created_gte: h.gte, created_lt: h.lt },
        row_count: null,
        url: null,
        url_expires_at: null,
        failure_reason: null,
        completed_at: null,
      });
      expect(pending.id).toMatch(/^rpt_/);
      expect((await json(await get(`/v1/reports/${pending.id}`))).status).toBe("pending");

      const report = await ready(pending.id);
      expect(report.completed_at).toBe(now());
      expect(report.url_expires_at).toBe(new Date(w.clock.now() + 3_600_000).toISOString());
      const [header, ...rows] = await csvAttachment(await download(report.url), `${report.id}.csv`);
      expect(header).toEqual(LEDGER_COLUMNS);
      expect(rows).toHaveLength(report.row_count);

      // Row for row the API's entries of the window (the API lists newest first).
      const listed = (await all(`/v1/ledger_entries?created_gte=${h.gte}&created_lt=${h.lt}`)).reverse();
      expect(rows).toEqual(listed.map((e: any) => ledgerRow(e)));
      expect(rows.length).toBeGreaterThan(10);
      const resources = new Set(rows.map((r) => r[6]));
      for (const p of [h.payouts.settled, h.payouts.split, h.payouts.failed]) expect(resources.has(p.id)).toBe(true);
      for (const p of [h.payouts.before, h.payouts.after]) expect(resources.has(p.id)).toBe(false);
      expect(resources.has("")).toBe(true); // the funding inside the window

      // The rows sum to the balances' movement over the window, book by book.
      for (const book of ["available", "reserved", "pending"]) {
        const moved = rows.filter((r) => r[2] === "USDC" && r[4] === book).reduce((a, r) => a + micro(r[5]!), 0n);
        expect(moved, book).toBe(micro(h.atEnd[book]) - micro(h.atStart[book]));
      }
    });

    it("builds a payout_ledger report: each payout entry with its leg and the network fee in it", async () => {
      const h = await history();
      const report = await ready((await json(await post("/v1/reports", { type: "payout_ledger", created_gte: h.gte, created_lt: h.lt }))).id);
      const [header, ...rows] = parseCsv(await (await download(report.url)).text());
      expect(header).toEqual(PAYOUT_COLUMNS);
      expect(rows).toHaveLength(report.row_count);
      const entries = (await all(`/v1/ledger_entries?created_gte=${h.gte}&created_lt=${h.lt}`)).filter((e) => e.resource?.startsWith("po_")).reverse();
      expect(rows.map((r) => [r[7], r[0], r[2], r[3], r[4], r[6], r[8]])).toEqual(
        entries.map((e) => [e.id, e.resource, e.chain, e.asset, e.amount, e.balance_type, e.created]),
      );
      for (const p of [h.payouts.settled, h.payouts.split, h.payouts.failed]) {
        const done = await json(await get(`/v1/payouts/${p.id}`));
        const mine = rows.filter((r) => r[0] === p.id);
        // every entry names one of the payout's legs on its chain
        for (const r of mine) expect(done.legs.find((l: any) => l.id === r[1])?.chain).toBe(r[2]);
        // what left available is amount plus fee of the legs that settled; their fee column adds up to the fees
        const settledLegs = done.legs.filter((l: any) => l.status === "confirmed");
        const spent = settledLegs.reduce((a: bigint, l: any) => a + micro(l.amount) + micro(l.fee), 0n);
        const fees = settledLegs.reduce((a: bigint, l: any) => a + micro(l.fee), 0n);
        const byBook = (book: string, column: number) => mine.filter((r) => r[6] === book).reduce((a, r) => a + micro(r[column]!), 0n);
        expect(byBook("available", 4)).toBe(-spent);
        expect(byBook("available", 5)).toBe(-fees);
        expect(byBook("reserved", 4)).toBe(0n);
        expect(byBook("reserved", 5)).toBe(0n);
        // per leg: the reservation (fee inside), then the send (no fee) and the fee alone, or the release (fee inside)
        for (const leg of done.legs) {
          const fee = micro(leg.fee);
          const gross = micro(leg.amount) + fee;
          const shape = mine.filter((r) => r[1] === leg.id).map((r) => [r[6], micro(r[4]!), micro(r[5]!)]);
          const reserve = [
            ["available", -gross, -fee],
            ["reserved", gross, fee],
          ];
          if (leg.status === "confirmed") {
            const sent = [["reserved", -micro(leg.amount), 0n], ...(fee > 0n ? [["reserved", -fee, -fee]] : [])];
            expect(shape).toEqual([...reserve, ...sent]);
          } else {
            expect(shape).toEqual([...reserve, ["reserved", -gross, -fee], ["available", gross, fee]]);
          }
        }
      }
      expect(rows.some((r) => r[0] === h.payouts.failed.id && r[6] === "available" && micro(r[4]!) > 0n)).toBe(true);
      expect(rows.some((r) => r[0] === h.payouts.before.id || r[0] === h.payouts.after.id)).toBe(false);
      expect(rows.every((r) => r[9] === "{}")).toBe(true);

      // metadata set on a payout afterwards is the payout's column in both kinds of report
      const tagged = h.payouts.settled.id;
      const set = await post(`/v1/payouts/${tagged}`, { metadata: { order_id: "A-1", "note, with comma": 'say "hi"' } });
      expect((await json(set)).metadata).toEqual({ order_id: "A-1", "note, with comma": 'say "hi"' });
      const meta = JSON.stringify({ order_id: "A-1", "note, with comma": 'say "hi"' });
      const again = await ready(
        (await json(await post("/v1/reports", { type: "payout_ledger", created_gte: h.gte, created_lt: h.lt, metadata: { run: "2" } }))).id,
      );
      expect(again.metadata).toEqual({ run: "2" });
      const [, ...tag] = parseCsv(await (await download(again.url)).text());
      expect(tag.map((r) => r[9])).toEqual(tag.map((r) => (r[0] === tagged ? meta : "{}")));
      const ledger = await ready((await json(await post("/v1/reports", { type: "ledger_entries", created_gte: h.gte, created_lt: h.lt }))).id);
      const [, ...lrows] = parseCsv(await (await download(ledger.url)).text());
      expect(lrows.map((r) => r[7])).toEqual(lrows.map((r) => (r[6] === tagged ? meta : r[6] === "" ? "" : "{}")));
    });

    it("mints a fresh link on every read; the link needs no key, and a tampered or expired one is 403", async () => {
      await fund("base", "12.5");
      await advance(1);
      const report = await ready((await json(await post("/v1/reports", { type: "ledger_entries" }))).id);
      expect(report.row_count).toBe(1);
      const url = new URL(report.url);
      expect(url.pathname).toBe(`/v1/files/reports/${w.accountId}/${report.id}.csv`);

      const good = await download(report.url);
      expect(good.status).toBe(200);
      expect(await good.text()).toContain(",12.5,");

      const refused = async (href: string, message: RegExp) => {
        const res = await download(href);
        expect(res.status).toBe(403);
        expect(res.headers.get("request-id")).toMatch(/^req_/);
        const body = await json(res);
        expect(body.error).toMatchObject({ type: "permission_error", code: "permission_denied" });
        expect(body.error.message).toMatch(message);
        expect(body.error.request_id).toBe(res.headers.get("request-id"));
      };
      const signature = url.searchParams.get("signature")!;
      const flipped = signature.slice(0, -1) + (signature.endsWith("0") ? "1" : "0");
      await refused(report.url.replace(signature, flipped), /not valid/);
      await refused(report.url.replace(`expires=${url.searchParams.get("expires")}`, `expires=${Number(url.searchParams.get("expires")) + 3600}`), /not valid/);
      await refused(report.url.replace(report.id, report.id.slice(0, -1) + (report.id.endsWith("a") ? "b" : "a")), /not valid/);
      await refused(report.url.replace(w.accountId, "acct_other"), /not valid/);
      await refused(`${report.url}&extra=1`, /not valid/);
      await refused(`${url.pathname}?expires=${url.searchParams.get("expires")}`, /not valid/);

      w.clock.advance(3_599_000);
      expect((await download(report.url)).status).toBe(200);
      w.clock.advance(1_000);
      await refused(report.url, /expired/);

      const again = await json(await get(`/v1/reports/${report.id}`));
      expect(again.url).not.toBe(report.url);
      expect((await download(again.url)).status).toBe(200);
      // links carry no credentials: an API key is neither needed nor looked at
      expect((await w.app.request(new URL(again.url).pathname + new URL(again.url).search, { headers: { authorization: "Bearer nonsense" } })).status).toBe(
        200,
      );
    });

    it("refuses bad types, formats and windows with catalogue errors, and creates nothing", async () => {
      const refused = async (body: unknown, param: string) => {
        const res = await post("/v1/reports", body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        const { error } = await json(res);
        expect(error).toMatchObject({ type: "invalid_request_error", code: "parameter_invalid", param });
      };
      await refused({ type: "payouts" }, "type");
      await refused({ type: "ledger_entries", format: "xlsx" }, "format");
      await refused({ type: "ledger_entries", created_gte: "2026-13-01" }, "created_gte");
      await refused({ type: "ledger_entries", created_lt: "yesterday" }, "created_lt");
      await refused({ type: "ledger_entries", created_gte: "2025-12-01", created_lt: "2025-12-01" }, "created_gte");
      await refused({ type: "ledger_entries", created_gte: "2025-12-02", created_lt: "2025-12-01" }, "created_gte");
      await refused({ type: "ledger_entries", created_lt: "2026-01-02" }, "created_lt"); // tomorrow: not over yet
      await refused({ type: "ledger_entries", created_lt: "2026-01-01T00:00:00Z", extra: 1 }, "extra");
      const missing = await post("/v1/reports", {});
      expect((await json(missing)).error).toMatchObject({ code: "parameter_missing", param: "type" });
      expect((await json(await get("/v1/reports"))).data).toEqual([]);
      const absent = await get("/v1/reports/rpt_nope");
      expect(absent.status).toBe(404);
      expect((await json(absent)).error.code).toBe("resource_missing");
    });

    it("takes dates and defaults: from the first entry to now, format csv", async () => {
      await fund("base", "1");
      const report = await json(await post("/v1/reports", { type: "ledger_entries", created_gte: "2025-12-31", created_lt: "2026-01-01" }));
      expect(report.parameters).toEqual({ created_gte: "2025-12-31T00:00:00.000Z", created_lt: "2026-01-01T00:00:00.000Z" });
      const open = await json(await post("/v1/reports", { type: "payout_ledger" }));
      expect(open).toMatchObject({ format: "csv", parameters: { created_gte: null, created_lt: now() } });
      expect((await ready(report.id)).row_count).toBe(0);
      const [header, ...rows] = parseCsv(await (await download((await ready(open.id)).url)).text());
      expect(header).toEqual(PAYOUT_COLUMNS);
      expect(rows).toEqual([]);
    });

    it("needs reports:read, and another account's report is not found", async () => {
      const payoutsOnly = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["payouts:read"] }))._unsafeUnwrap().key;
      const readOnly = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["reports:read"] }))._unsafeUnwrap().key;
      const denied = await w.request("POST", "/v1/reports", { body: { type: "ledger_entries" }, key: payoutsOnly });
      expect(denied.status).toBe(403);
      expect((await json(denied)).error.code).toBe("permission_denied");
      const allowed = await w.request("POST", "/v1/reports", { body: { type: "ledger_entries" }, key: readOnly });
      expect(allowed.status).toBe(200);
      const id = (await json(allowed)).id;
      expect((await w.request("GET", `/v1/reports/${id}`, { key: null })).status).toBe(401);
      const other = await w.engine.accounts.create({ name: "Other" });
      const otherKey = (await w.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
      expect((await w.request("GET", `/v1/reports/${id}`, { key: otherKey })).status).toBe(404);
    });

    it("lists reports with the list contract: newest first, status filter, cursors bound to the filters", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await json(await post("/v1/reports", { type: "ledger_entries" }))).id);
        w.clock.advance(1000);
      }
      await w.engine.worker.runDue();
      ids.push((await json(await post("/v1/reports", { type: "payout_ledger" }))).id);
      const listed = await all("/v1/reports");
      expect(listed.map((r) => r.id)).toEqual([...ids].reverse());
      expect(listed.filter((r) => r.status === "ready").every((r) => r.url && r.url_expires_at)).toBe(true);
      expect((await all("/v1/reports?status=pending")).map((r) => r.id)).toEqual([ids[5]]);
      const first = await json(await get("/v1/reports?status=ready&limit=2"));
      expect(first.has_more).toBe(true);
      const wrong = await get(`/v1/reports?limit=2&starting_after=${first.next_cursor}`);
      expect((await json(wrong)).error.code).toBe("cursor_invalid");
      expect((await json(await get("/v1/reports?status=done"))).error.param).toBe("status");
    });

    it("emits report.ready with the object (no link); a build that keeps failing ends failed with the reason", async () => {
      await fund("base", "3");
      w.clock.advance(1000);
      const ok = (await json(await post("/v1/reports", { type: "ledger_entries" }))).id;
      await w.engine.worker.runDue();
      const [readyEvent] = (await json(await get("/v1/events?type=report.ready"))).data;
      expect(readyEvent.data.object).toMatchObject({ id: ok, object: "report", status: "ready", row_count: 1, url: null });

      // The disk refuses every write from now on.
      blobs.failWith = new Error("disk full");
      const doomed = (await json(await post("/v1/reports", { type: "ledger_entries" }))).id;
      for (let attempt = 1; attempt < REPORT_BUILD_ATTEMPTS; attempt++) {
        await w.engine.worker.runDue();
        expect((await json(await get(`/v1/reports/${doomed}`))).status).toBe("pending");
        w.clock.advance(3_600_000);
      }
      await w.engine.worker.runDue();
      const failed = await json(await get(`/v1/reports/${doomed}`));
      expect(failed).toMatchObject({ status: "failed", row_count: null, url: null });
      expect(failed.failure_reason).toMatch(new RegExp(`after ${REPORT_BUILD_ATTEMPTS} attempts: .*disk full`));
      const [failedEvent] = (await json(await get("/v1/events?type=report.failed"))).data;
      expect(failedEvent.data.object).toMatchObject({ id: doomed, status: "failed", failure_reason: failed.failure_reason });
      blobs.failWith = null;
      expect(await blobs.exists(`reports/${w.accountId}/${doomed}.csv`)).toBe(false);
    });

    it("survives a worker that dies mid-build: pending, no file, then built whole by the next worker", async () => {
      for (let i = 0; i < 10; i++) await fund("base", `${i + 1}`);
      w.clock.advance(1000);
      const id = (await json(await post("/v1/reports", { type: "ledger_entries" }))).id;
      // A worker claims the build and starts writing, then dies: its upload never finishes.
      const [job] = await w.engine.storage.claimDueWork({
        now: w.clock.now(),
        limit: 1,
        leaseMs: engineDeps(w.engine).config.reportBuildLeaseMs,
        owner: "wrk_dead",
        onlyKinds: ["reports.build"],
      });
      expect(job).toBeDefined();
      let killed!: (e: Error) => void;
      const death = new Promise<never>((_, reject) => (killed = reject));
      const dying = blobs
        .put(
          `reports/${w.accountId}/${id}.csv`,
          (async function* () {
            yield Buffer.from("id,created,asset,chain,balance_type,amount,resource\r\nle_partial");
            await death;
          })(),
          { contentType: "text/csv" },
        )
        .catch(() => undefined);
      const folder = join(directory, "reports", w.accountId);
      for (let i = 0; i < 100 && !(await readdir(folder).catch(() => [])).length; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await readdir(folder)).toEqual([expect.stringMatching(/\.partial$/)]);

      await w.engine.worker.runDue(); // the lease holds: nobody else builds yet
      expect((await json(await get(`/v1/reports/${id}`))).status).toBe("pending");
      expect(await blobs.exists(`reports/${w.accountId}/${id}.csv`)).toBe(false);

      w.clock.advance(engineDeps(w.engine).config.reportBuildLeaseMs);
      const report = await ready(id);
      expect(report.row_count).toBe(10);
      const [, ...rows] = parseCsv(await (await download(report.url)).text());
      expect(rows.map((r) => r[5])).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
      killed(new Error("the dead worker's process is gone"));
      await dying;
      expect(await readdir(folder)).toEqual([`${id}.csv`]);
      expect((await json(await get(`/v1/events?type=report.ready`))).data).toHaveLength(1);
    });
  });
}

describe("reports in the OpenAPI document", () => {
  it("describes the routes, the request schema and the keyless download", async () => {
    const [memory] = storageKinds();
    const w = await testWorld(memory!);
    try {
      const doc = await (await w.app.request("/v1/openapi.json")).json();
      const create = doc.paths["/v1/reports"].post;
      expect(create.requestBody.content["application/json"].schema.properties.type.enum).toEqual(["ledger_entries", "payout_ledger"]);
      expect(create.requestBody.content["application/json"].schema.required).toEqual(["type"]);
      expect(doc.paths["/v1/reports/{id}"].get.summary).toMatch(/valid one hour/);
      expect(doc.paths["/v1/reports"].get.parameters.map((p: any) => p.name)).toEqual(
        expect.arrayContaining(["limit", "starting_after", "created_gte", "created_lt", "status"]),
      );
      // the query's parameters (the Payrail-Version header is a shared one, by reference)
      expect(doc.paths["/v1/ledger_entries"].get.parameters.filter((p: any) => p.in === "query").map((p: any) => p.name)).toEqual([
        "limit",
        "starting_after",
        "ending_before",
        "created_gte",
        "created_lt",
      ]);
      const download = doc.paths["/v1/files/{key}"].get;
      expect(download.security).toEqual([]);
      expect(download.parameters.map((p: any) => p.name)).toEqual(["key", "expires", "signature"]);
    } finally {
      await w.close();
    }
  });
});

describe("reports through the S3 adapter (s3rver on loopback)", () => {
  let s3: LoopbackS3;
  let w: TestWorld;
  beforeAll(async () => {
    s3 = await startLoopbackS3();
  });
  afterAll(async () => {
    await s3?.close();
  });
  beforeEach(async () => {
    const [memory] = storageKinds();
    // s3rver checks a presigned URL's expiry against the real time: the engine's clock starts there.
    w = await testWorld(memory!, { clock: new ManualClock(Date.now()), blobs: s3.open().store, config: { reportPageSize: 2 } });
  });
  afterEach(() => w.close());

  it("downloads the file by S3's own presigned URL, the same rows as the API's", async () => {
    const post = (path: string, body: unknown) => w.request("POST", path, { body });
    for (const amount of ["1.5", "2", "0.000001"]) await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount });
    w.clock.advance(1000);
    const id = (await (await post("/v1/reports", { type: "ledger_entries" })).json()).id;
    await w.engine.worker.runDue();
    const report = await (await w.request("GET", `/v1/reports/${id}`)).json();
    expect(report).toMatchObject({ status: "ready", row_count: 3 });
    const url = new URL(report.url);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(report.url_expires_at).toBe(new Date(w.clock.now() + 3_600_000).toISOString());
    const [header, ...rows] = await csvAttachment(await fetch(report.url), `${id}.csv`);
    expect(header).toEqual(LEDGER_COLUMNS);
    const listed = (await (await w.request("GET", "/v1/ledger_entries")).json()).data.reverse();
    expect(rows).toEqual(listed.map((e: any) => ledgerRow(e)));
    expect(rows.map((r) => r[5])).toEqual(["1.5", "2", "0.000001"]);
  });
});
