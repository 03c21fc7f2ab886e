import { err, ok, type Result } from "neverthrow";
import type { ApiKey } from "./api-key-objects";
import type { Out } from "../../api/response-schema";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ApiError, fail } from "../../errors";
import { randomToken } from "../../ids";
import { type ListEnvelope, type PagedList, listPage, pagedList } from "../../lists/list-page";
import type { ApiKeyRecord } from "../../ports/storage";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { changesBetween, recordAudit } from "../audit-log/audit-doc";
import { isoTime } from "../../validation/timestamp";
import { hashApiKey, redactApiKey } from "../accounts/auth";
import { keyUsable } from "./key-usable";
import {
  type CreateApiKeyRequest,
  type ListApiKeysParams,
  type RollApiKeyInput,
  createApiKeySchema,
  listApiKeysSchema,
  rollApiKeySchema,
} from "./api-key-schemas";

/**
 * The API key object (`ApiKey` of `src/api/objects.ts`). The key itself (`secret`) is in the
 * answer to create and roll only: it is stored as its SHA-256, so it can never be shown again,
 * and an idempotent replay of those answers leaves it out. `last4` is all a list shows of it.
 */
export type ApiKeyObject = Out<typeof ApiKey>;

/** A key made now, ready to store: the plain key is returned beside its record, never stored. */
export function newApiKey(
  deps: Pick<ModuleDeps, "random" | "ids" | "clock">,
  account: { id: string; livemode: boolean },
  fields: { scopes: string[]; name?: string | null; key?: string },
): { key: string; record: ApiKeyRecord } {
  const key = fields.key ?? `sk_${account.livemode ? "live" : "test"}_${randomToken(deps.random, 32)}`;
  return {
    key,
    record: {
      hash: hashApiKey(key),
      accountId: account.id,
      id: deps.ids.next("key"),
      name: fields.name ?? null,
      livemode: account.livemode,
      scopes: fields.scopes,
      redacted: redactApiKey(key),
      created: deps.clock.now(),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    },
  };
}

/**
 * Stores a new key in `uow` and records its creation (an audit record and, unless `event` is
 * false, `api_key.created`; neither with the key); false, with nothing written, when its hash is
 * taken already.
 */
export async function insertApiKey(uow: UnitOfWork, record: ApiKeyRecord, options: { event?: boolean } = {}): Promise<boolean> {
  if (!(await uow.tx.accounts.insertApiKey(record))) return false;
  const changes = changesBetween({}, { name: record.name, scopes: record.scopes });
  await recordAudit(uow, "api_key.created", { type: "api_key", id: record.id }, presentApiKey(record, uow.now), changes, options);
  return true;
}

export function presentApiKey(key: ApiKeyRecord, now: number, secret?: string): ApiKeyObject {
  const object: ApiKeyObject = {
    id: key.id,
    object: "api_key",
    name: key.name,
    livemode: key.livemode,
    scopes: key.scopes as ApiKeyObject["scopes"], // stored only once checked against the catalogue
    last4: key.redacted.slice(-4),
    status: key.revokedAt !== null ? "revoked" : keyUsable(key, now) ? "active" : "expired",
    expires_at: key.expiresAt === null ? null : isoTime(key.expiresAt),
    revoked_at: key.revokedAt === null ? null : isoTime(key.revokedAt),
    last_used: key.lastUsedAt === null ? null : isoTime(key.lastUsedAt),
    created: isoTime(key.created),
  };
  return secret === undefined ? object : { ...object, secret };
}

/**
 * API keys of the caller's account (docs/decisions.md §3): create, list, retrieve, roll and revoke.
 * Over HTTP only a full-access key may call these (a restricted key gets `permission_denied`).
 * A key's mode is its account's; a new key has the scopes asked for (none: full access).
 */
export class ApiKeysService {
  constructor(private readonly deps: Pick<ModuleDeps, "clock" | "cursors" | "ids" | "parse" | "random" | "storage">) {}

  async create(ctx: RequestContext, input: CreateApiKeyRequest = {}): Promise<Result<ApiKeyObject, ApiError>> {
    const parsed = createApiKeySchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { key, record } = newApiKey(
      this.deps,
      { id: ctx.accountId, livemode: ctx.livemode },
      {
        scopes: [...new Set(parsed.value.scopes ?? [])],
        name: parsed.value.name ?? null,
      },
    );
    return this.write(ctx, async (uow) => {
      if (!(await insertApiKey(uow, record))) throw new Error("a new API key collided with a stored one");
      return ok(presentApiKey(record, uow.now, key));
    });
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<ApiKeyObject, ApiError>> {
    const key = await this.deps.storage.read((tx) => tx.accounts.getApiKey(ctx.accountId, id));
    return key ? ok(presentApiKey(key, this.deps.clock.now())) : missing(id);
  }

  /** The account's keys, newest first, each with its last 4 characters only. */
  list(ctx: RequestContext, params: ListApiKeysParams = {}): PagedList<ApiKeyObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  /**
   * A new key with the same name and scopes; the old one keeps working for `grace_period`
   * seconds (0: stops now), then authenticates no more. A revoked or expired key cannot be rolled.
   */
  async roll(ctx: RequestContext, id: string, input: RollApiKeyInput = {}): Promise<Result<ApiKeyObject, ApiError>> {
    const parsed = rollApiKeySchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const grace = (parsed.value.grace_period ?? 0) * 1000;
    return this.write(ctx, async (uow) => {
      const { tx, now } = uow;
      const old = await tx.accounts.getApiKey(ctx.accountId, id, { lock: true });
      if (!old) return missing(id);
      if (!keyUsable(old, now)) return fail("parameter_invalid", `API key ${id} is ${presentApiKey(old, now).status}: it cannot be rolled`, { param: "id" });
      const expiresAt = old.expiresAt === null ? now + grace : Math.min(old.expiresAt, now + grace);
      await tx.accounts.updateApiKey(ctx.accountId, id, { expiresAt });
      const { key, record } = newApiKey(this.deps, { id: ctx.accountId, livemode: ctx.livemode }, { scopes: [...old.scopes], name: old.name });
      if (!(await tx.accounts.insertApiKey(record))) throw new Error("a new API key collided with a stored one");
      // the old key is what changed: it now expires, replaced by the new one
      await recordAudit(uow, "api_key.rolled", { type: "api_key", id }, presentApiKey({ ...old, expiresAt }, now), {
        expires_at: { from: old.expiresAt === null ? null : isoTime(old.expiresAt), to: isoTime(expiresAt) },
        replaced_by: { from: null, to: record.id },
      });
      return ok(presentApiKey(record, now, key));
    });
  }

  /** The key stops authenticating at once (revoking a revoked key changes nothing). */
  async revoke(ctx: RequestContext, id: string): Promise<Result<ApiKeyObject, ApiError>> {
    return this.write(ctx, async (uow) => {
      const { tx, now } = uow;
      const key = await tx.accounts.getApiKey(ctx.accountId, id, { lock: true });
      if (!key) return missing(id);
      if (key.revokedAt !== null) return ok(presentApiKey(key, now));
      await tx.accounts.updateApiKey(ctx.accountId, id, { revokedAt: now });
      const revoked = presentApiKey({ ...key, revokedAt: now }, now);
      await recordAudit(uow, "api_key.revoked", { type: "api_key", id }, revoked, { revoked_at: { from: null, to: isoTime(now) } });
      return ok(revoked);
    });
  }

  private async page(ctx: RequestContext, input: ListApiKeysParams): Promise<Result<ListEnvelope<ApiKeyObject>, ApiError>> {
    const parsed = listApiKeysSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const now = this.deps.clock.now();
    return listPage({
      codec: this.deps.cursors,
      accountId: ctx.accountId,
      list: "api_keys",
      params: parsed.value,
      fetch: (query) => this.deps.storage.read((tx) => tx.accounts.listApiKeys(query)),
      position: (row) => ({ created: row.created, id: row.id }),
      present: (row) => presentApiKey(row, now),
    });
  }

  /**
   * One command, its idempotent response saved without the secret: a replay answers the same
   * key, never its secret again.
   */
  private write(ctx: RequestContext, fn: (uow: UnitOfWork) => Promise<Result<ApiKeyObject, ApiError>>): Promise<Result<ApiKeyObject, ApiError>> {
    return this.deps.storage.command(ctx, fn, { stored: ({ secret: _secret, ...shown }) => shown });
  }
}

function missing<T>(id: string): Result<T, ApiError> {
  return fail("resource_missing", `No such API key: ${id}`, { param: "id" });
}
