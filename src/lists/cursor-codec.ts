import { createHmac, timingSafeEqual } from "node:crypto";
import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";

/** Where a page ended: the last row's sort key. */
export interface CursorPosition {
  created: number;
  id: string;
}

/** What a cursor is bound to: a cursor minted for one binding is refused under any other. */
export interface CursorBinding {
  accountId: string;
  /** The list's name, e.g. `events`, `payouts`. */
  list: string;
  /** Canonical text of the list's filters (everything but `limit` and the cursors, `starting_after` and `ending_before`). */
  filters: string;
}

/** Ids of rows (`po_…`), or the keys of lists that have no ids (balances by asset code, event types by type). */
const ID = /^[A-Za-z0-9_.]{1,64}$/;

/**
 * `cur_` + base64url(JSON [created, id]) + "." + base64url(HMAC-SHA256 over the binding and the
 * payload), docs/decisions.md §5: opaque to clients, and a tampered, foreign or re-filtered cursor is
 * `cursor_invalid`.
 */
export class CursorCodec {
  constructor(private readonly secret: Uint8Array) {
    if (secret.length < 16) throw new RangeError("cursor secret must have at least 16 bytes");
  }

  encode(position: CursorPosition, binding: CursorBinding): string {
    const payload = Buffer.from(JSON.stringify([position.created, position.id])).toString("base64url");
    return `cur_${payload}.${this.sign(payload, binding).toString("base64url")}`;
  }

  decode(cursor: string, binding: CursorBinding, param = "starting_after"): Result<CursorPosition, ApiError> {
    const invalid = () => fail<CursorPosition>("cursor_invalid", "The cursor is invalid for this list", { param });
    if (!cursor.startsWith("cur_") || cursor.length > 512) return invalid();
    const [payload, signature, ...rest] = cursor.slice(4).split(".");
    if (!payload || !signature || rest.length) return invalid();
    const given = Buffer.from(signature, "base64url");
    const expected = this.sign(payload, binding);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid();
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      if (!Array.isArray(value) || value.length !== 2) return invalid();
      const [created, id] = value as [unknown, unknown];
      if (typeof created !== "number" || !Number.isSafeInteger(created) || typeof id !== "string" || !ID.test(id)) {
        return invalid();
      }
      return ok({ created, id });
    } catch {
      return invalid();
    }
  }

  private sign(payload: string, binding: CursorBinding): Buffer {
    return createHmac("sha256", this.secret).update(`${binding.accountId}\n${binding.list}\n${binding.filters}\n${payload}`).digest();
  }
}
