import type { Json } from "./json";

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
  livemode: boolean;
  /** Empty means full access. */
  scopes: string[];
  /** A redacted form for display, e.g. `sk_test_…a1b2`. */
  redacted: string;
  created: number;
}

export interface AccountStore {
  /** Inserts an account; the id is new. */
  insertAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  /** Replaces the settings of an existing account. */
  updateAccountSettings(id: string, settings: Json): Promise<void>;
  /** Inserts a key; returns false (and changes nothing) when the hash exists already. */
  insertApiKey(key: ApiKeyRecord): Promise<boolean>;
  /** Called on every authenticated request. */
  findApiKey(hash: string): Promise<ApiKeyRecord | null>;
}
