import { createHash } from "node:crypto";
import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import type { ModuleDeps } from "../../engine/context";
import { FULL_ACCESS, scopesAllow, type RouteScope } from "../../engine/scopes";
import { keyUsable } from "../api-keys/key-usable";
import type { ApiKeyRecord } from "../../ports/storage";
import { accountApiVersion } from "./account-version";

/** Who an API key says the caller is. */
export interface Principal {
  accountId: string;
  livemode: boolean;
  /** Empty means full access. */
  scopes: readonly string[];
  keyHash: string;
  /** `key_…`: how the audit log and request logs name the key (never the key itself). */
  keyId: string;
  /** The account's default API version (`Payrail-Version` overrides it per request). */
  apiVersion: string;
}

/** How fresh a key's `last_used` is kept: it is written at most once a minute per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{16,200}$/;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function isApiKeyFormat(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function redactApiKey(key: string): string {
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}

/** Bearer-key authentication (docs/decisions.md §3): keys are looked up by their SHA-256 only. */
export class AuthService {
  constructor(private readonly deps: Pick<ModuleDeps, "clock" | "storage">) {}

  async authenticate(authorization: string | null | undefined): Promise<Result<Principal, ApiError>> {
    if (!authorization || authorization.trim() === "") {
      return fail("api_key_missing", "No API key provided: send Authorization: Bearer <key>");
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    if (!match) return fail("api_key_invalid", "The Authorization header must be Bearer <key>");
    const key = match[1]!;
    if (!isApiKeyFormat(key)) return fail("api_key_invalid", "Invalid API key");
    const hash = hashApiKey(key);
    // the key and its account's settings (its default API version), in one read
    const [record, account] = await this.deps.storage.read(async (tx) => {
      const record = await tx.accounts.findApiKey(hash);
      return [record, record ? await tx.accounts.getAccount(record.accountId) : null] as const;
    });
    if (!record || record.livemode !== key.startsWith("sk_live_")) return fail("api_key_invalid", "Invalid API key");
    if (!keyUsable(record, this.deps.clock.now())) {
      return fail("api_key_invalid", record.revokedAt !== null ? "This API key was revoked" : "This API key expired");
    }
    await this.noteUse(record);
    return ok({
      accountId: record.accountId,
      livemode: record.livemode,
      scopes: record.scopes,
      keyHash: hash,
      keyId: record.id,
      apiVersion: accountApiVersion(account?.settings),
    });
  }

  /**
   * Keeps the key's `last_used` to the minute: written when the stored one is a minute old or
   * more, in a small transaction of its own that is not durable (a crash of the database may lose
   * a minute of it, which the next request mends), so a busy key costs one write a minute. A
   * failure to write it never fails the request.
   */
  private async noteUse(record: ApiKeyRecord): Promise<void> {
    const now = this.deps.clock.now();
    if (record.lastUsedAt !== null && now - record.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    await this.deps.storage
      .engineWork((tx) => tx.accounts.updateApiKey(record.accountId, record.id, { lastUsedAt: now }), { durable: false })
      .catch(() => undefined);
  }

  /** `permission_denied` unless the principal has the scope. */
  authorize(principal: Principal, scope: RouteScope): Result<Principal, ApiError> {
    if (scopesAllow(principal.scopes, scope)) return ok(principal);
    return scope === FULL_ACCESS
      ? fail("permission_denied", "Only a full-access API key (one without scopes) can do this")
      : fail("permission_denied", `This API key lacks the ${scope} scope`);
  }
}
