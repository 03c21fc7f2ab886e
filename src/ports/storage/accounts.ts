import type { Json } from "./json";
import type { KeysetQuery, ResourceRecord } from "./resources";

/**
 * Accounts and API keys.
 */

export interface AccountRecord {
  id: string;
  name: string;
  livemode: boolean;
  /** Account settings such as policy limits; owned by the core. */
  settings: Json;
  created: number;
}

export interface ApiKeyRecord {
  /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
  hash: string;
  accountId: string;
  /** `key_…`, how the API names the key (unique per account). */
  id: string;
  /** A label the owner chose, or null. */
  name: string | null;
  livemode: boolean;
  /** Empty means full access. */
  scopes: string[];
  /** A redacted form for display, e.g. `sk_test_…a1b2`. */
  redacted: string;
  created: number;
  /** The key stops authenticating at this moment (a roll's grace period), or null. */
  expiresAt: number | null;
  /** When it was revoked (it no longer authenticates), or null. */
  revokedAt: number | null;
  /**
   * When it last authenticated a request, to the minute (the engine writes it at most once a
   * minute per key), or null when it never has.
   */
  lastUsedAt: number | null;
}

/** What a key's lifecycle changes: its expiry, its revocation, and when it was last used. */
export type ApiKeyChange = Partial<Pick<ApiKeyRecord, "expiresAt" | "revokedAt" | "lastUsedAt">>;

export interface AccountStore {
  /** Inserts an account; the id is new. */
  insertAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  /**
   * The account and its resource `resourceId` (of any kind; null where either is missing), read
   * together: a request that needs both (a payout create: its recipient and the account's
   * settings) pays one statement for them on a server.
   */
  getAccountWith(accountId: string, resourceId: string): Promise<{ account: AccountRecord | null; resource: ResourceRecord | null }>;
  /** Replaces the settings of an existing account. */
  updateAccountSettings(id: string, settings: Json): Promise<void>;
  /** Inserts a key; returns false (and changes nothing) when the hash exists already. */
  insertApiKey(key: ApiKeyRecord): Promise<boolean>;
  /** Called on every authenticated request. */
  findApiKey(hash: string): Promise<ApiKeyRecord | null>;
  /** The account's key of this id, or null; `lock` holds it until the transaction ends. */
  getApiKey(accountId: string, id: string, options?: { lock?: boolean }): Promise<ApiKeyRecord | null>;
  /** One keyset page of the account's keys, newest first (only `after` and `limit` of the query apply). */
  listApiKeys(query: KeysetQuery): Promise<ApiKeyRecord[]>;
  /** Changes an existing key's expiry or revocation; returns whether the key exists. */
  updateApiKey(accountId: string, id: string, change: ApiKeyChange): Promise<boolean>;
}
