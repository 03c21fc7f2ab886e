import type { StorageTx } from "../ports/storage";

/**
 * Who receives an engine-wide event (`EventDefinition.engineWide`): the accounts of a mode that
 * have (or had) a webhook endpoint naming its type, kept in `meta` as a JSON list and added to
 * when an endpoint names it. An account whose endpoint stopped naming it stays on the list: an
 * event in that account then reaches no endpoint of it, and is only listed under its events.
 */
const key = (type: string, livemode: boolean) => `events.subscribers:${type}:${livemode ? "live" : "test"}`;

/** Adds `accountId` to the receivers of `type` in its mode, under the key's lock. */
export async function addEngineWideSubscriber(tx: Pick<StorageTx, "meta">, type: string, livemode: boolean, accountId: string): Promise<void> {
  const k = key(type, livemode);
  await tx.meta.setIfAbsent(k, "[]");
  const known = JSON.parse((await tx.meta.get(k, { lock: true })) ?? "[]") as string[];
  if (!known.includes(accountId)) await tx.meta.set(k, JSON.stringify([...known, accountId].sort()));
}

/** The accounts of a mode that receive `type`. */
export async function engineWideSubscribers(tx: { meta: Pick<StorageTx["meta"], "get"> }, type: string, livemode: boolean): Promise<string[]> {
  return JSON.parse((await tx.meta.get(key(type, livemode))) ?? "[]") as string[];
}
