import { MemoryStorage } from "./memory-storage";

export { MemoryStorage, type MemoryTables } from "./memory-storage";

/** A fresh, empty in-memory storage adapter. */
export function createMemoryStorage(): MemoryStorage {
  return new MemoryStorage();
}
