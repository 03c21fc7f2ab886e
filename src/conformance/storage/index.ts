import { afterEach, beforeEach, describe } from "vitest";
import type { StorageAdapter } from "../../ports/storage";
import { accountSuite } from "./accounts";
import { adapterStateSuite } from "./adapter-state";
import { deliveryLogSuite } from "./deliveries";
import { depositAddressSuite } from "./deposit-addresses";
import { dueWorkSuite } from "./due-work";
import { dueWorkAccountSuite } from "./due-work-accounts";
import { dueWorkSharesSuite } from "./due-work-shares";
import { eventSuite } from "./events";
import type { SuiteContext } from "./fixtures";
import type { StorageConformanceOptions, StorageHarness } from "./harness";
import { idempotencySuite } from "./idempotency";
import { ledgerSuite } from "./ledger";
import { metaSuite } from "./meta";
import { ownerSuite } from "./owners";
import { rateLimitSuite } from "./rate-limits";
import { resourceSuite } from "./resources";
import { retentionSuite } from "./retention";
import { transactionSuite } from "./transactions";

export type { StorageConformanceOptions, StorageHarness, StorageInspector } from "./harness";

/**
 * The storage conformance suite: every storage adapter must pass it. Register it from a vitest
 * file: `storageConformance({ name: "mine", factory })`. One suite per store of the port
 * (each in its own file here); tests that need an ability the adapter lacks are skipped by the
 * adapter's own `capabilities`, with the reason.
 */
export function storageConformance(options: StorageConformanceOptions): void {
  describe(`storage conformance: ${options.name}`, () => {
    let h: StorageHarness;
    let storage: StorageAdapter;
    beforeEach(async () => {
      h = await options.factory();
      storage = h.storage;
      await storage.init();
    });
    afterEach(async () => {
      await storage.close();
      await h.close();
    });
    const s: SuiteContext = {
      get storage() {
        return storage;
      },
      get inspect() {
        return h.inspect;
      },
    };
    transactionSuite(s);
    accountSuite(s);
    ledgerSuite(s);
    resourceSuite(s);
    eventSuite(s);
    deliveryLogSuite(s);
    retentionSuite(s);
    idempotencySuite(s);
    dueWorkSuite(s);
    dueWorkAccountSuite(s);
    dueWorkSharesSuite(s);
    ownerSuite(s);
    rateLimitSuite(s);
    depositAddressSuite(s);
    metaSuite(s);
    adapterStateSuite(s);
  });
}
