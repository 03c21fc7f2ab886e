import { assertBlobKey, type BlobObject, type BlobStore } from "../../src/ports/public";

/**
 * Blobs in process memory: for tests and single-process hosts that keep nothing across a
 * restart. A put collects its body and swaps it in whole, so readers never see half a file.
 */
export class MemoryBlobStore implements BlobStore {
  readonly name = "memory";
  readonly capabilities = { downloadUrls: false };
  private readonly blobs = new Map<string, { content: Uint8Array; contentType: string }>();

  async put(key: string, body: AsyncIterable<Uint8Array>, options: { contentType: string }): Promise<{ size: number }> {
    assertBlobKey(key);
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    const content = Buffer.concat(chunks);
    this.blobs.set(key, { content, contentType: options.contentType });
    return { size: content.length };
  }

  async get(key: string): Promise<BlobObject | null> {
    assertBlobKey(key);
    const blob = this.blobs.get(key);
    if (!blob) return null;
    const { content } = blob;
    return {
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          if (content.length) controller.enqueue(new Uint8Array(content));
          controller.close();
        },
      }),
      contentType: blob.contentType,
      size: content.length,
    };
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    this.blobs.delete(key);
  }

  async exists(key: string): Promise<boolean> {
    assertBlobKey(key);
    return this.blobs.has(key);
  }

  /** Keys held now, sorted: the conformance suite's independent read path. */
  keys(): string[] {
    return [...this.blobs.keys()].sort();
  }

  /** A copy of the stored bytes, or null (independent read path for tests). */
  read(key: string): Uint8Array | null {
    const blob = this.blobs.get(key);
    return blob ? new Uint8Array(blob.content) : null;
  }

  async close(): Promise<void> {}
}

/** A fresh, empty in-memory blob store. */
export function createMemoryBlobStore(): MemoryBlobStore {
  return new MemoryBlobStore();
}
