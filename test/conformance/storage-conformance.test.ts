import { afterAll } from "vitest";
import { storageConformance } from "../../src/conformance";
import { closeSharedStorage, partitionedKinds, storageKinds, threadedPGliteKinds } from "../support/storage";

// and PGlite in a worker thread (`openPGlite(dir, { thread: true })`); and the PostgreSQL server in the layout Citus distributes: the big tables hash-partitioned by account
for (const kind of [...storageKinds(), ...threadedPGliteKinds(), ...partitionedKinds(2)]) {
  storageConformance({ name: kind.name, factory: kind.factory });
}

afterAll(closeSharedStorage);
