export { S3BlobStore, createS3BlobStore, MIN_PART_SIZE, type S3BlobStoreOptions } from "./s3-blob-store";
