import { afterAll } from "vitest";
import { storageConformance } from "../../src/conformance";
import { closeSharedStorage, storageKinds } from "../support/storage";

for (const kind of storageKinds()) {
  storageConformance({ name: kind.name, factory: kind.factory });
}

afterAll(closeSharedStorage);
