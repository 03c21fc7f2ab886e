import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { createFileBlobStore, createMemoryBlobStore } from "../../adapters/blobs";
import { SystemClock } from "../../adapters/clock";
import { blobConformance } from "../../src/conformance";
import { startLoopbackS3, type LoopbackS3 } from "../support/s3-server";

const clock = new SystemClock();

blobConformance({
  name: "memory",
  clock,
  factory: async () => {
    const store = createMemoryBlobStore();
    return { store, read: async (key) => store.read(key) };
  },
});

blobConformance({
  name: "filesystem",
  clock,
  factory: async () => {
    const directory = await mkdtemp(join(tmpdir(), "payrail-blobs-"));
    const store = createFileBlobStore({ directory });
    return {
      store,
      read: async (key) => {
        try {
          return new Uint8Array(await readFile(join(directory, ...key.split("/"))));
        } catch (e) {
          if ((e as { code?: string }).code === "ENOENT") return null;
          throw e;
        }
      },
      close: () => rm(directory, { recursive: true, force: true }),
    };
  },
});

let s3: LoopbackS3;
beforeAll(async () => {
  s3 = await startLoopbackS3();
});
afterAll(async () => {
  await s3?.close();
});

blobConformance({
  name: "s3 (s3rver on loopback)",
  clock,
  factory: async () => s3.open(),
});
