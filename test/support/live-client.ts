import { expect } from "vitest";
import type { TestWorld } from "./engine";

/** A live account of a test world, and JSON requests made with its key. */
export interface LiveClient {
  id: string;
  key: string;
  /** POSTs `body` under a fresh `Idempotency-Key`; answers the parsed body. */
  post(path: string, body?: unknown): Promise<any>;
  get(path: string): Promise<any>;
}

/** Makes a live account in `w` with a full-access key (the engine's live chains serve it). */
export async function liveClient(w: TestWorld): Promise<LiveClient> {
  const live = await w.engine.accounts.create({ name: "Live", livemode: true });
  const key = (await w.engine.accounts.createApiKey(live.id))._unsafeUnwrap().key;
  let n = 0;
  return {
    id: live.id,
    key,
    post: async (path, body = {}) => (await w.request("POST", path, { body, key, headers: { "Idempotency-Key": `live-${n++}` } })).json(),
    get: async (path) => (await w.request("GET", path, { key })).json(),
  };
}

/** `POST /v1/reconciliations/run` for `chain` with the client's key, expecting it compared: the records by asset. */
export async function reconcileNow(client: Pick<LiveClient, "post">, chain: string): Promise<Record<string, any>> {
  const answer = await client.post("/v1/reconciliations/run", { chain });
  expect(answer.deferred).toEqual([]);
  return Object.fromEntries(answer.data.map((r: any) => [r.asset, r]));
}
