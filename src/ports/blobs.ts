/**
 * The blob port: where finished report files are kept until they expire. The engine mints the
 * signed download URLs itself; the blob store only keeps bytes.
 */
export interface BlobStore {
  /** Adapter name for error messages. */
  readonly name: string;
  /** Stores `content` under `key`, replacing any earlier content. Called by the report worker. */
  put(key: string, content: Uint8Array, contentType: string): Promise<void>;
  /** The stored bytes and type, or null. Called when a signed URL is downloaded. */
  get(key: string): Promise<{ content: Uint8Array; contentType: string } | null>;
  /** Removes a blob; no error when absent. */
  delete(key: string): Promise<void>;
}
