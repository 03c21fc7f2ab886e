import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { assertBlobKey, type BlobObject, type BlobStore } from "../../src/ports/public";

export interface FileBlobStoreOptions {
  /** The folder blobs are kept under (created if missing), e.g. `<PAYRAIL_DATA_DIR>/blobs`. */
  directory: string;
}

/**
 * Blobs as plain files under one folder: the key is the relative path, so an operator can read
 * a report with `cat`. A put streams into a hidden temporary file beside the target, flushes it
 * to disk and renames it over the key, so a reader (or a crash) never meets half a file; the
 * content type lives in `.meta/<key>.json`. Two keys where one is a folder of the other (`a` and
 * `a/b`) cannot both exist here (the second put fails); the engine's keys never do that.
 *
 * A process killed during a put leaves its `.<name>.<random>.partial` file behind; nothing reads
 * it, and it can be deleted at any time.
 */
export class FileBlobStore implements BlobStore {
  readonly name = "filesystem";
  readonly capabilities = { downloadUrls: false };
  readonly directory: string;

  constructor(options: FileBlobStoreOptions) {
    this.directory = resolve(options.directory);
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, options: { contentType: string }): Promise<{ size: number }> {
    const path = this.path(key);
    const meta = this.metaPath(key);
    await mkdir(dirname(path), { recursive: true });
    await mkdir(dirname(meta), { recursive: true });
    const suffix = randomBytes(8).toString("hex");
    const temp = join(dirname(path), `.${key.split("/").pop()}.${suffix}.partial`);
    const metaTemp = `${meta}.${suffix}.partial`;
    try {
      await pipeline(Readable.from(body, { objectMode: false }), createWriteStream(temp, { flags: "wx" }));
      const handle = await open(temp, "r+");
      let size: number;
      try {
        await handle.sync();
        size = (await handle.stat()).size;
      } finally {
        await handle.close();
      }
      await writeFile(metaTemp, JSON.stringify({ contentType: options.contentType }), { flag: "wx" });
      await rename(metaTemp, meta);
      await rename(temp, path);
      return { size };
    } catch (e) {
      await rm(temp, { force: true });
      await rm(metaTemp, { force: true });
      throw e;
    }
  }

  async get(key: string): Promise<BlobObject | null> {
    const path = this.path(key);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, "r");
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      const contentType = await this.contentType(key);
      // The open handle keeps reading the content it found, even if a put replaces the key now.
      const stream = handle.createReadStream({ autoClose: true });
      return { body: Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>, contentType, size: info.size };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
    await rm(this.metaPath(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.path(key))).isFile();
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  async close(): Promise<void> {}

  /** Where `key`'s content lives on disk. */
  path(key: string): string {
    assertBlobKey(key);
    return join(this.directory, ...key.split("/"));
  }

  private metaPath(key: string): string {
    assertBlobKey(key);
    return `${join(this.directory, ".meta", ...key.split("/"))}.json`;
  }

  private async contentType(key: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(this.metaPath(key), "utf8")) as { contentType?: unknown };
      if (typeof meta.contentType === "string") return meta.contentType;
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    return "application/octet-stream";
  }
}

function isMissing(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Blobs as files under `directory`. */
export function createFileBlobStore(options: FileBlobStoreOptions): FileBlobStore {
  return new FileBlobStore(options);
}
