import { afterAll } from "vitest";
import { chainConformance } from "../../../../src/conformance";
import { solanaHarness } from "../../../support/solana/solana-harness";
import { closeSharedStorage, storageKinds } from "../../../support/storage";

/**
 * The published chain suite, unchanged, on the Solana adapter against litesvm behind the
 * JSON-RPC server, its state kept on every storage kind (memory, PGlite, PostgreSQL with
 * DATABASE_URL): the adapter-state seam carries it on each.
 */
for (const kind of storageKinds()) {
  chainConformance({ name: `solana (litesvm behind JSON-RPC, ${kind.name})`, factory: async () => solanaHarness(await kind.factory()) });
}

afterAll(closeSharedStorage);
