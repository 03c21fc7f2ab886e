import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { assertBlobKey, type BlobDownloadOptions, type BlobObject, type BlobStore } from "../../src/ports/public";

/** S3's smallest part of a multipart upload (every part but the last). */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export interface S3BlobStoreOptions {
  /** The bucket blobs are kept in (it must exist). */
  bucket: string;
  /** Prepended to every key, e.g. `payrail/` (default none). */
  prefix?: string;
  /**
   * A client you built (not destroyed by `close`), or leave it out and give `clientConfig`:
   * `{ region, endpoint, forcePathStyle, credentials }` for any S3-compatible server.
   */
  client?: S3Client;
  clientConfig?: S3ClientConfig;
  /**
   * Bytes buffered per uploaded part (default 8 MiB, at least 5 MiB): the most a put holds in
   * memory at once, whatever the size of the file.
   */
  partSize?: number;
}

/**
 * Blobs in an S3 bucket (AWS, or any S3-compatible server such as MinIO or s3rver). A put
 * streams its body as a multipart upload, one part in memory at a time, and the object appears
 * only when the upload completes (a failed put aborts the upload, leaving what was there). A
 * body smaller than one part goes up as one PutObject. Download URLs are S3's own presigned
 * GETs, with the content type and file name as response overrides, so downloads never pass
 * through the engine.
 */
export class S3BlobStore implements BlobStore {
  readonly name = "s3";
  readonly capabilities = { downloadUrls: true };
  readonly client: S3Client;
  private readonly ownsClient: boolean;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? "";
    this.partSize = options.partSize ?? 8 * 1024 * 1024;
    if (this.partSize < MIN_PART_SIZE) throw new RangeError(`partSize must be at least ${MIN_PART_SIZE} bytes`);
    this.ownsClient = !options.client;
    this.client = options.client ?? new S3Client(options.clientConfig ?? {});
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, options: { contentType: string }): Promise<{ size: number }> {
    const Key = this.key(key);
    const Bucket = this.bucket;
    let buffered: Uint8Array[] = [];
    let bufferedBytes = 0;
    let size = 0;
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    const uploadPart = async () => {
      const Body = Buffer.concat(buffered, bufferedBytes);
      buffered = [];
      bufferedBytes = 0;
      uploadId ??= (await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: options.contentType }))).UploadId;
      if (!uploadId) throw new Error("S3 returned no upload id");
      const PartNumber = parts.length + 1;
      const { ETag } = await this.client.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body }));
      parts.push({ ETag, PartNumber });
    };
    try {
      for await (const chunk of body) {
        buffered.push(chunk);
        bufferedBytes += chunk.length;
        size += chunk.length;
        if (bufferedBytes >= this.partSize) await uploadPart();
      }
      if (uploadId === undefined) {
        const Body = Buffer.concat(buffered, bufferedBytes);
        await this.client.send(new PutObjectCommand({ Bucket, Key, Body, ContentType: options.contentType }));
        return { size };
      }
      if (bufferedBytes > 0) await uploadPart();
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      return { size };
    } catch (e) {
      if (uploadId !== undefined) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
      }
      throw e;
    }
  }

  async get(key: string): Promise<BlobObject | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
      if (!out.Body) return null;
      return {
        body: out.Body.transformToWebStream() as ReadableStream<Uint8Array>,
        contentType: out.ContentType ?? "application/octet-stream",
        size: out.ContentLength ?? 0,
      };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  downloadUrl(key: string, options: BlobDownloadOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.key(key),
      ResponseContentType: options.contentType,
      ResponseContentDisposition: `attachment; filename="${options.filename.replace(/["\\]/g, "_")}"`,
    });
    // Signed at the engine's clock, so url_expires_at and the URL's own expiry agree.
    return getSignedUrl(this.client, command, {
      expiresIn: Math.max(1, Math.floor((options.expiresAt - options.now) / 1000)),
      signingDate: new Date(options.now),
    });
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
  }

  private key(key: string): string {
    assertBlobKey(key);
    return this.prefix + key;
  }
}

function isNotFound(e: unknown): boolean {
  const error = e as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return error?.name === "NoSuchKey" || error?.name === "NotFound" || error?.$metadata?.httpStatusCode === 404;
}

/** Blobs in an S3 bucket: `createS3BlobStore({ bucket, clientConfig: { region, endpoint, … } })`. */
export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  return new S3BlobStore(options);
}
