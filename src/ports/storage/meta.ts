/**
 * Engine metadata: settings such as the cursor secret, kept as text.
 */

export interface MetaStore {
  /** `lock` holds a row lock on the key until the transaction ends (when the key exists). */
  get(key: string, options?: { lock?: boolean }): Promise<string | null>;
  /** Stores `value` unless the key exists; returns the stored value either way. */
  setIfAbsent(key: string, value: string): Promise<string>;
  set(key: string, value: string): Promise<void>;
  /**
   * Stores the larger of the stored integer and `value` (as decimal text), atomically even under
   * concurrent callers; returns what is stored. A missing key counts as smaller than anything.
   */
  raise(key: string, value: number): Promise<number>;
}
