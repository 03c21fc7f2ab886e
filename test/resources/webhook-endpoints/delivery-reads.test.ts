import { describe, expect, it } from "vitest";
import type { ModuleDeps, ReadTx } from "../../../src/engine/context";
import { type DeliveryJob, DeliveryReads } from "../../../src/resources/webhook-endpoints/delivery-read";
import type { WebhookEndpointsService } from "../../../src/resources/webhook-endpoints/webhook-endpoints-service";

/**
 * A delivery item's reads (its account's API version, its endpoint, its events) are sent
 * together: on a session that keeps call order (PGlite's, in its thread) they cost one wait for
 * the host's loop instead of three, while the reading transaction holds the one session.
 */
describe("delivery reads", () => {
  it("sends an item's three reads before any of them answers", async () => {
    const asked: string[] = [];
    const answers: (() => void)[] = [];
    const pending = <T>(what: string, value: T) =>
      new Promise<T>((resolve) => {
        asked.push(what);
        answers.push(() => resolve(value));
      });
    const tx = {
      accounts: { getAccount: () => pending("account", null) },
      resources: { getMany: () => pending("endpoints", []) },
      events: { getMany: () => pending("events", []) },
    } as unknown as ReadTx;
    const deps = { storage: { capabilities: { concurrentTransactions: false } } } as unknown as ModuleDeps;
    const reads = new DeliveryReads(deps, { revision: () => 0 } as unknown as WebhookEndpointsService);
    const job = {
      id: "work_1",
      kind: "webhook.deliver",
      accountId: "acct_a",
      livemode: false,
      request: null,
      attempts: 1,
      leaseOwner: "owner",
      leaseUntil: 60_000,
      created: 0,
      payload: { endpoint: "we_1", events: ["evt_1", "evt_2"], trigger: "scheduled" },
    } as unknown as DeliveryJob;
    const prepared = reads.prepareIn(tx, [job], () => 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked.sort()).toEqual(["account", "endpoints", "events"]);
    for (const answer of answers) answer();
    expect(await prepared).toEqual([null]); // no endpoint stored: nothing to send
  });
});
