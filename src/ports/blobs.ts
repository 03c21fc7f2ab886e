/**
 * The blob port: where finished report files are kept. Three adapters implement it: memory
 * (tests), the filesystem (`createFileBlobStore`, the embedded default) and S3-compatible object
 * storage (`payrail/adapters/s3`); the published `blobConformance` suite holds them to it.
 *
 * Keys are relative paths the core chooses, such as `reports/acct_…/rpt_….csv`: segments of
 * `A-Z a-z 0-9 . _ -` separated by `/`, never starting with a dot, at most 512 characters
 * (`isBlobKey`). Bodies are streams, so a file of any size passes through with flat memory.
 */
export interface BlobStore {
  /** Adapter name for error messages, e.g. `memory`, `filesystem`, `s3`. */
  readonly name: string;
  readonly capabilities: BlobCapabilities;
  /**
   * Stores everything `body` yields under `key`, replacing earlier content, and resolves with
   * the size once the content is durable. All or nothing: readers see the old content (or none)
   * until the new content is complete, and a put that fails (including when `body` throws) leaves
   * what was there before. Called by the report worker with rows streamed from storage; the
   * adapter must pull `body` no faster than it can write (back pressure), never buffering all of it.
   */
  put(key: string, body: AsyncIterable<Uint8Array>, options: BlobPutOptions): Promise<{ size: number }>;
  /**
   * The stored content as a stream, with its type and size, or null when there is none. Called
   * when a host-served download link is followed.
   */
  get(key: string): Promise<BlobObject | null>;
  /** Removes a blob; no error when there is none. */
  delete(key: string): Promise<void>;
  /** Whether `key` holds content now (complete content only, never a put in progress). */
  exists(key: string): Promise<boolean>;
  /**
   * With `capabilities.downloadUrls`: a URL of the store's own that serves `key` to anyone
   * holding it (no API key) until `expiresAt`, with the given content type and a download file
   * name (S3: a presigned GET). Without the capability the engine signs links that the host's
   * HTTP binding serves instead, and never calls this.
   */
  downloadUrl?(key: string, options: BlobDownloadOptions): Promise<string>;
  /** Releases connections. The engine calls it once, from `engine.close()`. */
  close(): Promise<void>;
}

export interface BlobCapabilities {
  /**
   * The store mints download URLs itself (`downloadUrl`), and serves them without the engine.
   * Default for stores without it: false (memory, filesystem).
   */
  readonly downloadUrls: boolean;
}

export interface BlobPutOptions {
  /** The MIME type served with the content, e.g. `text/csv; charset=utf-8`. */
  contentType: string;
}

export interface BlobObject {
  /** The content; the caller reads it to the end or cancels it. */
  body: ReadableStream<Uint8Array>;
  contentType: string;
  /** Bytes. */
  size: number;
}

export interface BlobDownloadOptions {
  /** The engine clock's now, epoch milliseconds: the moment the URL is signed. */
  now: number;
  /** When the URL stops working, epoch milliseconds (after `now`). */
  expiresAt: number;
  /** The file name a browser saves the download as (`Content-Disposition: attachment`). */
  filename: string;
  contentType: string;
}

const KEY = /^(?!\.)[A-Za-z0-9._-]+(?:\/(?!\.)[A-Za-z0-9._-]+)*$/;

/** Whether `key` is a blob key of the port's grammar (adapters may rely on it). */
export function isBlobKey(key: string): boolean {
  return key.length <= 512 && KEY.test(key);
}

/** Throws a TypeError unless `key` is a blob key of the port's grammar (adapters call it first). */
export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) throw new TypeError(`invalid blob key ${JSON.stringify(key)}`);
}
