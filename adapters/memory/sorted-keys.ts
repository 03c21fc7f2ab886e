import { compareStateKeys } from "../../src/ports/public";

/**
 * A namespace's keys in key order, for range reads over a `Map` that holds the values. New keys
 * wait in a list and are merged in at the next read (sorting only them), and keys deleted from
 * the map are dropped at a merge: writes stay O(1), and a read after many writes pays one merge,
 * not a sort of the whole namespace. Readers skip keys the map no longer has.
 */
export class SortedKeys {
  private keys: string[] = [];
  private added: string[] = [];

  /** A key that may be new to the map (or back in it after a delete, or a rollback of one). */
  note(key: string): void {
    this.added.push(key);
  }

  /** Every key of the map in order; may still hold some the map lost (`has` tells). */
  ordered(has: (key: string) => boolean): readonly string[] {
    if (!this.added.length) return this.keys;
    const added = this.added.sort(compareStateKeys);
    this.added = [];
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    const push = (key: string) => {
      if (has(key) && merged[merged.length - 1] !== key) merged.push(key);
    };
    while (i < this.keys.length || j < added.length) {
      if (j >= added.length || (i < this.keys.length && compareStateKeys(this.keys[i]!, added[j]!) <= 0)) push(this.keys[i++]!);
      else push(added[j++]!);
    }
    this.keys = merged;
    return merged;
  }
}

/** The first index of `keys` (in key order) whose key is at or after `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareStateKeys(keys[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
