import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BlobStore } from "../ports/blobs";
import type { Clock } from "../ports/clock";

export interface BlobHarness {
  /** A fresh, empty store. */
  store: BlobStore;
  /**
   * Reads what is stored under `key` without the adapter's own `get` (the files on disk, a raw
   * request to the bucket), or null when nothing is: the suite's independent read path.
   */
  read: (key: string) => Promise<Uint8Array | null>;
  close?: () => Promise<void>;
}

export interface BlobConformanceOptions {
  name: string;
  factory: () => Promise<BlobHarness>;
  /** The time download URLs are signed at (a real clock for a store a real server checks). */
  clock: Clock;
  /**
   * Bytes of the large streamed put (default 6 MiB: more than one 5 MiB part, so an S3 adapter
   * goes through its multipart path).
   */
  largeSize?: number;
}

const CSV = "text/csv; charset=utf-8";

async function* chunks(...parts: (string | Uint8Array)[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? new TextEncoder().encode(part) : part;
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = body.getReader();
  const out: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(value);
  }
  return Buffer.concat(out);
}

/** Deterministic bytes: `size` of them, in chunks of `chunk`, every byte value present. */
async function* pattern(size: number, chunk: number, hash?: ReturnType<typeof createHash>): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < size; offset += chunk) {
    const n = Math.min(chunk, size - offset);
    const bytes = new Uint8Array(n);
    for (let i = 0; i < n; i++) bytes[i] = ((offset + i) * 7) % 251;
    hash?.update(bytes);
    yield bytes;
  }
}

/**
 * The blob conformance suite: every blob store must pass it. Register it from a vitest file:
 * `blobConformance({ name: "mine", factory })`. It checks what the report worker and the
 * download links rely on: round trips of bytes and content type, streamed puts larger than one
 * upload part, replacement, all-or-nothing puts (a failing body leaves the old content, and a
 * put in progress is invisible), deletes, key validation, and, for stores with
 * `capabilities.downloadUrls`, URLs that serve the file to a client holding no credentials.
 * Stored content is checked through the harness's independent `read`, not only through `get`.
 */
export function blobConformance(options: BlobConformanceOptions): void {
  const largeSize = options.largeSize ?? 6 * 1024 * 1024;
  describe(`blob conformance: ${options.name}`, () => {
    let h: BlobHarness;
    beforeEach(async () => {
      h = await options.factory();
    });
    afterEach(async () => {
      await h.close?.();
      await h.store.close();
    });

    it("stores bytes and content type, and reads them back", async () => {
      const key = "reports/acct_1/rpt_1.csv";
      const binary = new Uint8Array(256).map((_, i) => i);
      const put = await h.store.put(key, chunks("id,amount\r\n", binary, 'é,"x"\r\n'), { contentType: CSV });
      const expected = Buffer.concat([Buffer.from("id,amount\r\n"), binary, Buffer.from('é,"x"\r\n')]);
      expect(put.size).toBe(expected.length);
      expect(await h.store.exists(key)).toBe(true);
      const got = await h.store.get(key);
      expect(got).not.toBeNull();
      expect(got!.contentType).toBe(CSV);
      expect(got!.size).toBe(expected.length);
      expect((await readAll(got!.body)).equals(expected)).toBe(true);
      expect(Buffer.from((await h.read(key))!).equals(expected)).toBe(true);
    });

    it("answers null and false for a key that holds nothing, and deletes quietly", async () => {
      expect(await h.store.get("reports/none.csv")).toBeNull();
      expect(await h.store.exists("reports/none.csv")).toBe(false);
      await h.store.delete("reports/none.csv");
      expect(await h.read("reports/none.csv")).toBeNull();
    });

    it("streams a put larger than one upload part, in many small chunks", async () => {
      const key = "reports/large.csv";
      const written = createHash("sha256");
      const put = await h.store.put(key, pattern(largeSize, 64 * 1024 + 3, written), { contentType: CSV });
      expect(put.size).toBe(largeSize);
      const digest = written.digest("hex");
      const got = await h.store.get(key);
      expect(got!.size).toBe(largeSize);
      expect(
        createHash("sha256")
          .update(await readAll(got!.body))
          .digest("hex"),
      ).toBe(digest);
      expect(
        createHash("sha256")
          .update((await h.read(key))!)
          .digest("hex"),
      ).toBe(digest);
    });

    it("stores an empty body", async () => {
      const put = await h.store.put("reports/empty.csv", chunks(), { contentType: CSV });
      expect(put.size).toBe(0);
      const got = await h.store.get("reports/empty.csv");
      expect(got!.size).toBe(0);
      expect((await readAll(got!.body)).length).toBe(0);
      expect(await h.store.exists("reports/empty.csv")).toBe(true);
    });

    it("replaces content and content type on a second put", async () => {
      const key = "reports/replaced.csv";
      await h.store.put(key, chunks("first"), { contentType: "text/plain" });
      await h.store.put(key, chunks("second, longer"), { contentType: CSV });
      const got = await h.store.get(key);
      expect(got!.contentType).toBe(CSV);
      expect((await readAll(got!.body)).toString()).toBe("second, longer");
      expect(Buffer.from((await h.read(key))!).toString()).toBe("second, longer");
    });

    it("keeps keys apart, nested or not", async () => {
      await h.store.put("reports/acct_a/rpt_1.csv", chunks("a1"), { contentType: CSV });
      await h.store.put("reports/acct_a/rpt_2.csv", chunks("a2"), { contentType: CSV });
      await h.store.put("reports/acct_b/rpt_1.csv", chunks("b1"), { contentType: CSV });
      await h.store.delete("reports/acct_a/rpt_1.csv");
      expect(await h.store.exists("reports/acct_a/rpt_1.csv")).toBe(false);
      expect(Buffer.from((await h.read("reports/acct_a/rpt_2.csv"))!).toString()).toBe("a2");
      expect(Buffer.from((await h.read("reports/acct_b/rpt_1.csv"))!).toString()).toBe("b1");
    });

    it("leaves the old content when the body fails midway, and nothing under a new key", async () => {
      const failing = async function* () {
        yield new TextEncoder().encode("partial row,");
        yield new Uint8Array(largeSize); // past one upload part, so a multipart upload is under way
        throw new Error("storage went away");
      };
      await h.store.put("reports/kept.csv", chunks("complete"), { contentType: CSV });
      await expect(h.store.put("reports/kept.csv", failing(), { contentType: CSV })).rejects.toThrow();
      expect(Buffer.from((await h.read("reports/kept.csv"))!).toString()).toBe("complete");
      expect((await readAll((await h.store.get("reports/kept.csv"))!.body)).toString()).toBe("complete");

      await expect(h.store.put("reports/new.csv", failing(), { contentType: CSV })).rejects.toThrow();
      expect(await h.store.exists("reports/new.csv")).toBe(false);
      expect(await h.store.get("reports/new.csv")).toBeNull();
      expect(await h.read("reports/new.csv")).toBeNull();
    });

    it("shows nothing of a put in progress", async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const begun = new Promise<void>((resolve) => (started = resolve));
      const slow = async function* () {
        yield new TextEncoder().encode("new ");
        started();
        await gate;
        yield new TextEncoder().encode("content");
      };
      await h.store.put("reports/swap.csv", chunks("old content"), { contentType: CSV });
      const putting = h.store.put("reports/swap.csv", slow(), { contentType: CSV });
      const putNew = h.store.put(
        "reports/fresh.csv",
        (async function* () {
          yield new TextEncoder().encode("x");
          await gate;
        })(),
        { contentType: CSV },
      );
      await begun;
      expect((await readAll((await h.store.get("reports/swap.csv"))!.body)).toString()).toBe("old content");
      expect(await h.store.exists("reports/fresh.csv")).toBe(false);
      release();
      await putting;
      await putNew;
      expect((await readAll((await h.store.get("reports/swap.csv"))!.body)).toString()).toBe("new content");
      expect(await h.store.exists("reports/fresh.csv")).toBe(true);
    });

    it("refuses keys outside the grammar", async () => {
      for (const key of ["../escape.csv", "/absolute.csv", "a//b.csv", ".hidden", "a/./b", "a/../b", "sp ace.csv", ""]) {
        await expect(h.store.put(key, chunks("x"), { contentType: CSV }), key).rejects.toThrow();
        await expect(h.store.get(key), key).rejects.toThrow();
      }
    });

    it("serves download URLs to a client holding no credentials", async (t) => {
      if (!h.store.capabilities.downloadUrls || !h.store.downloadUrl) {
        t.skip("the store has no download URLs of its own (capabilities.downloadUrls is false): the engine signs links");
        return;
      }
      const key = "reports/acct_1/rpt_dl.csv";
      await h.store.put(key, chunks("id,amount\r\nle_1,10\r\n"), { contentType: CSV });
      const now = options.clock.now();
      const url = await h.store.downloadUrl(key, { now, expiresAt: now + 3600_000, filename: "rpt_dl.csv", contentType: CSV });
      expect(url).toMatch(/^https?:\/\//);
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(CSV);
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="rpt_dl.csv"');
      expect(await response.text()).toBe("id,amount\r\nle_1,10\r\n");
    });
  });
}
