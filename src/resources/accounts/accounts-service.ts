import { err, ok, type Result } from "neverthrow";
import type { Account } from "./account-objects";
import type { Out } from "../../api/response-schema";
import { ApiError, expectOk, fail } from "../../errors";
import type { AccountRecord, Json } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import { isApiKeyFormat } from "./auth";
import { insertApiKey, newApiKey } from "../api-keys/api-keys-service";
import { systemContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import { type AccountPolicy, type PolicyInput, parsePolicy, policyOf } from "./policy";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { changesBetween, recordAudit } from "../audit-log/audit-doc";
import { LATEST_VERSION, parseApiVersion } from "../../versions/api-versions";
import { accountApiVersion } from "./account-version";
import { updateAccountSchema, type UpdateAccountInput } from "./account-schemas";

/** `GET /v1/account`: who the key belongs to and the account's payout policy. */
export type AccountObject = Out<typeof Account>;

export function presentAccount(account: AccountRecord): AccountObject {
  return {
    id: account.id,
    object: "account",
    name: account.name,
    livemode: account.livemode,
    api_version: accountApiVersion(account.settings),
    policy: policyOf(account.settings),
    created: isoTime(account.created),
  };
}

export interface CreateAccountInput {
  name: string;
  livemode?: boolean;
  /** The account's default API version (default: the newest, pinned now). */
  api_version?: string;
}

export interface CreateApiKeyInput {
  /** Empty or absent: full access. */
  scopes?: string[];
  /** Use this key instead of a random one (e.g. `PAYRAIL_API_KEY` of the host server). */
  key?: string;
}

export interface CreatedApiKey {
  /** The plain key: shown once, never stored. */
  key: string;
  redacted: string;
  scopes: string[];
}

/**
 * Accounts and their API keys, for the host (there is no public API to create them). An account
 * is test or live; its keys follow its mode (`sk_test_` / `sk_live_`).
 */
export class AccountsService {
  constructor(private readonly deps: Pick<ModuleDeps, "catalogue" | "clock" | "house" | "ids" | "parse" | "random" | "storage">) {}

  async create(input: CreateAccountInput): Promise<AccountRecord> {
    const version = parseApiVersion(input.api_version ?? LATEST_VERSION, "api_version");
    if (version.isErr()) throw version.error;
    const account: AccountRecord = {
      id: this.deps.ids.next("acct"),
      name: input.name,
      livemode: input.livemode ?? false,
      settings: { api_version: version.value },
      created: this.deps.clock.now(),
    };
    const inserted = await this.deps.storage.command(systemContext(account.id, account.livemode), async (uow) => {
      await uow.tx.accounts.insertAccount(account);
      return ok(account);
    });
    return expectOk(inserted, "a new account inserts");
  }

  /**
   * The house account of a mode: the platform's own books, where platform fees and network-fee
   * margins land (never a customer's). Read its balances with `engine.balances.list`.
   */
  house(livemode: boolean): string {
    return this.deps.house[livemode ? "live" : "test"];
  }

  async get(id: string): Promise<AccountRecord | null> {
    return this.deps.storage.read((tx) => tx.accounts.getAccount(id));
  }

  /**
   * The context the engine's calls take for `accountId` (its mode read from the account), as a
   * host passes it: `engine.payouts.create(await engine.accounts.context(id), {…})`. `request`
   * names the host's own request, recorded on the events it causes.
   */
  async context(accountId: string, request: { requestId?: string; idempotencyKey?: string } = {}): Promise<RequestContext> {
    const account = await this.get(accountId);
    if (!account) throw new ApiError("resource_missing", `No such account: ${accountId}`);
    return { accountId, livemode: account.livemode, requestId: request.requestId ?? null, idempotencyKey: request.idempotencyKey ?? null };
  }

  /** Sets the account's payout policy (replacing the previous one). */
  async setPolicy(accountId: string, input: PolicyInput): Promise<Result<AccountPolicy, ApiError>> {
    const policy = parsePolicy(this.deps.parse, input);
    if (policy.isErr()) return policy;
    const known = await this.get(accountId);
    if (!known) return fail("resource_missing", `No such account: ${accountId}`);
    return this.deps.storage.command(systemContext(accountId, known.livemode), async (uow) => {
      const account = await uow.tx.accounts.getAccount(accountId);
      if (!account) return fail("resource_missing", `No such account: ${accountId}`);
      await changePolicy(uow, account, policy.value);
      return ok(policy.value);
    });
  }

  async policy(accountId: string): Promise<AccountPolicy> {
    return policyOf((await this.get(accountId))?.settings);
  }

  /** The caller's account (`GET /v1/account`). */
  async retrieve(ctx: RequestContext): Promise<Result<AccountObject, ApiError>> {
    const account = await this.get(ctx.accountId);
    return account ? ok(presentAccount(account)) : fail("resource_missing", `No such account: ${ctx.accountId}`);
  }

  /**
   * `POST /v1/account`: sets the account's default API version (`api_version`, one of the
   * catalogue's: docs/versions.md). Requests without `Payrail-Version` and webhooks use it from
   * then on.
   */
  async update(ctx: RequestContext, input: UpdateAccountInput): Promise<Result<AccountObject, ApiError>> {
    const parsed = updateAccountSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const version = parsed.value.api_version;
    return this.deps.storage.command(ctx, async ({ tx }) => {
      const account = await tx.accounts.getAccount(ctx.accountId);
      if (!account) return fail("resource_missing", `No such account: ${ctx.accountId}`);
      if (version === undefined) return ok(presentAccount(account));
      const settings = { ...(account.settings as object), api_version: version };
      await tx.accounts.updateAccountSettings(ctx.accountId, settings as Json);
      return ok(presentAccount({ ...account, settings: settings as Json }));
    });
  }

  /**
   * `POST /v1/account/policy` (docs/decisions.md §10): each field given replaces that part of the
   * policy (`{}` lifts every limit of it); a field left out keeps what it was.
   */
  async updatePolicy(ctx: RequestContext, input: PolicyInput): Promise<Result<AccountObject, ApiError>> {
    const parsed = parsePolicy(this.deps.parse, input);
    if (parsed.isErr()) return err(parsed.error);
    const given = input as Partial<Record<keyof AccountPolicy, unknown>>;
    return this.deps.storage.command(ctx, async (uow) => {
      const account = await uow.tx.accounts.getAccount(ctx.accountId);
      if (!account) return fail("resource_missing", `No such account: ${ctx.accountId}`);
      const current = policyOf(account.settings);
      const policy: AccountPolicy = {
        max_payout_amount: given.max_payout_amount !== undefined ? parsed.value.max_payout_amount : current.max_payout_amount,
        approval_threshold: given.approval_threshold !== undefined ? parsed.value.approval_threshold : current.approval_threshold,
      };
      return ok(await changePolicy(uow, account, policy));
    });
  }

  /**
   * A key the host provisions for an account (as `npm start` does for its demo account on every
   * start): recorded in the audit log as the host's, without an `api_key.created` event (the
   * host made it; the account's receivers hear of keys made through the API).
   */
  async createApiKey(accountId: string, input: CreateApiKeyInput = {}): Promise<Result<CreatedApiKey, ApiError>> {
    const account = await this.get(accountId);
    if (!account) return fail("resource_missing", `No such account: ${accountId}`);
    const scopes = input.scopes ?? [];
    const badScope = scopes.find((scope) => !this.deps.catalogue.isScope(scope));
    if (badScope !== undefined) return fail("parameter_invalid", `Unknown scope: ${badScope}`, { param: "scopes" });
    const mode = account.livemode ? "live" : "test";
    const key = input.key;
    if (key !== undefined && (!isApiKeyFormat(key) || !key.startsWith(`sk_${mode}_`))) {
      return fail("parameter_invalid", `An API key of this account looks like sk_${mode}_ followed by 16 or more characters`, {
        param: "key",
      });
    }
    const made = newApiKey(this.deps, account, { scopes, ...(key !== undefined ? { key } : {}) });
    const inserted = expectOk(
      await this.deps.storage.command(systemContext(accountId, account.livemode), async (uow) => ok(await insertApiKey(uow, made.record, { event: false }))),
      "an API key inserts or is found taken",
    );
    if (!inserted) {
      const existing = await this.deps.storage.read((tx) => tx.accounts.findApiKey(made.record.hash));
      if (existing?.accountId !== accountId) return fail("parameter_invalid", "This API key is taken", { param: "key" });
    }
    return ok({ key: made.key, redacted: made.record.redacted, scopes });
  }
}

/**
 * Replaces the account's policy in `uow`, recording the change in the audit log (with an
 * `account.policy_updated` event) when it changes anything; the account as it is now.
 */
async function changePolicy(uow: UnitOfWork, account: AccountRecord, policy: AccountPolicy): Promise<AccountObject> {
  const settings = { ...(account.settings as object), policy } as Json;
  const before = policyOf(account.settings);
  const changes = changesBetween(
    { max_payout_amount: before.max_payout_amount, approval_threshold: before.approval_threshold },
    { max_payout_amount: policy.max_payout_amount, approval_threshold: policy.approval_threshold },
  );
  const object = presentAccount({ ...account, settings });
  if (Object.keys(changes).length === 0) return object;
  await uow.tx.accounts.updateAccountSettings(account.id, settings);
  await recordAudit(uow, "account.policy_updated", { type: "account", id: account.id }, object, changes);
  return object;
}
