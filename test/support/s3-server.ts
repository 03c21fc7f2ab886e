import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { createS3BlobStore, MIN_PART_SIZE, type S3BlobStore } from "../../adapters/s3";

/** An S3-compatible server (s3rver) on loopback, started by the tests; it checks no signatures. */
export interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  /**
   * A store on a fresh key prefix, so tests sharing the server never see each other's blobs, and
   * `read`: the raw object fetched without the adapter (s3rver serves unsigned GETs).
   */
  open(): { store: S3BlobStore; read: (key: string) => Promise<Uint8Array | null> };
  close(): Promise<void>;
}

let seq = 0;

export async function startLoopbackS3(): Promise<LoopbackS3> {
  const directory = await mkdtemp(join(tmpdir(), "payrail-s3-"));
  const bucket = "payrail-reports";
  const server = new S3rver({ port: 0, address: "127.0.0.1", directory, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    open() {
      const prefix = `t${process.pid}-${seq++}/`;
      const store = createS3BlobStore({
        bucket,
        prefix,
        partSize: MIN_PART_SIZE,
        clientConfig: {
          endpoint,
          region: "us-east-1",
          forcePathStyle: true,
          credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
        },
      });
      const read = async (key: string) => {
        const response = await fetch(`${endpoint}/${bucket}/${prefix}${key}`);
        if (response.status === 404) return null;
        if (!response.ok) throw new Error(`s3rver answered ${response.status}`);
        return new Uint8Array(await response.arrayBuffer());
      };
      return { store, read };
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
