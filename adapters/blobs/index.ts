export { MemoryBlobStore, createMemoryBlobStore } from "./memory-blob-store";
export { FileBlobStore, createFileBlobStore, type FileBlobStoreOptions } from "./file-blob-store";
