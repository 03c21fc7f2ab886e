import { createHmac, timingSafeEqual } from "node:crypto";
import { err, ok, type Result } from "neverthrow";
import { ApiError } from "../errors";
import { isBlobKey } from "../ports/blobs";

/** Where host-served downloads live: `/v1/files/<blob key>`. */
export const FILES_PATH = "/v1/files/";

/** A download link the engine signed, and when it stops working (epoch ms, whole seconds). */
export interface SignedLink {
  url: string;
  expiresAt: number;
}

/**
 * Download links the host's HTTP binding serves, for blob stores that cannot mint URLs of their
 * own (memory, filesystem): `<origin>/v1/files/<key>?expires=<unix seconds>&signature=<hex>`,
 * where the signature is HMAC-SHA256 over the method, the path and the expiry under a key
 * derived from the engine's secret. Whoever holds the link may download until it expires; any
 * changed byte of the path or expiry, or an expired link, is 403 `permission_denied`. Checking
 * a link needs no storage read, as with S3's presigned URLs.
 */
export class FileLinks {
  private readonly key: Buffer;

  constructor(secret: string | Uint8Array) {
    this.key = createHmac("sha256", secret).update("payrail file links v1").digest();
  }

  sign(origin: string, blobKey: string, expiresAtMs: number): SignedLink {
    if (!isBlobKey(blobKey)) throw new TypeError(`invalid blob key ${blobKey}`);
    const expires = Math.floor(expiresAtMs / 1000);
    const path = FILES_PATH + blobKey;
    return {
      url: `${origin.replace(/\/+$/, "")}${path}?expires=${expires}&signature=${this.signature(path, expires)}`,
      expiresAt: expires * 1000,
    };
  }

  /**
   * The blob key a request for `path` with `query` may download at `now`, or 403 when the link
   * was tampered with or has expired (the expiry is checked after the signature, so a forged
   * expiry is reported as tampering).
   */
  verify(path: string, query: Record<string, unknown>, now: number): Result<string, ApiError> {
    const denied = (message: string) => err(new ApiError("permission_denied", message));
    const { expires, signature, ...rest } = query;
    if (typeof expires !== "string" || typeof signature !== "string" || Object.keys(rest).length > 0) {
      return denied("This download link is not valid: it must be used exactly as it was given");
    }
    if (!path.startsWith(FILES_PATH) || !/^[0-9]{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) {
      return denied("This download link is not valid: it must be used exactly as it was given");
    }
    const expected = Buffer.from(this.signature(path, Number(expires)), "hex");
    if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) {
      return denied("This download link is not valid: it must be used exactly as it was given");
    }
    if (now >= Number(expires) * 1000) {
      return denied("This download link has expired; retrieve the report again for a fresh one");
    }
    const key = path.slice(FILES_PATH.length);
    return isBlobKey(key) ? ok(key) : denied("This download link is not valid");
  }

  private signature(path: string, expires: number): string {
    return createHmac("sha256", this.key).update(`GET\n${path}\n${expires}`).digest("hex");
  }
}
