/**
 * Schema migrations, applied in order by `init()` under an advisory lock. `{s}` stands for the
 * adapter's schema. Never edit a released migration: add the next one.
 *
 * Every account-owned table carries `account_id` first in its keys, so the schema can later be
 * distributed by account. Money is `numeric(78,0)` base units; times are epoch milliseconds.
 * Events and stored responses are `json` (kept as written, so replays and webhooks show the
 * fields in the order the engine wrote them); resources are `jsonb`.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "foundation",
    sql: `
CREATE TABLE {s}.accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  livemode boolean NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}',
  created bigint NOT NULL
);

CREATE TABLE {s}.api_keys (
  hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES {s}.accounts (id),
  livemode boolean NOT NULL,
  scopes text[] NOT NULL DEFAULT '{}',
  redacted text NOT NULL,
  created bigint NOT NULL
);

CREATE TABLE {s}.balances (
  account_id text NOT NULL,
  asset text NOT NULL,
  chain text NOT NULL,
  book text NOT NULL,
  amount numeric(78, 0) NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, asset, chain, book),
  CONSTRAINT customer_books_never_negative CHECK (book LIKE 'counter:%' OR amount >= 0)
);

CREATE TABLE {s}.ledger_entries (
  account_id text NOT NULL,
  id text NOT NULL,
  posting_id text NOT NULL,
  asset text NOT NULL,
  chain text NOT NULL,
  book text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  resource text,
  created bigint NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX ledger_entries_by_resource ON {s}.ledger_entries (account_id, resource) WHERE resource IS NOT NULL;

CREATE TABLE {s}.reservations (
  account_id text NOT NULL,
  id text NOT NULL,
  asset text NOT NULL,
  chain text NOT NULL,
  amount numeric(78, 0) NOT NULL CHECK (amount > 0),
  remaining numeric(78, 0) NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'resolved')),
  resource text,
  created bigint NOT NULL,
  resolved_at bigint,
  PRIMARY KEY (account_id, id),
  CONSTRAINT remaining_within_amount CHECK (remaining >= 0 AND remaining <= amount),
  CONSTRAINT resolved_holds_nothing CHECK (status = 'active' OR remaining = 0)
);

CREATE TABLE {s}.resources (
  account_id text NOT NULL,
  kind text NOT NULL,
  id text NOT NULL,
  created bigint NOT NULL,
  status text,
  reference text,
  data jsonb NOT NULL,
  version integer NOT NULL,
  updated bigint NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX resources_list ON {s}.resources (account_id, kind, created DESC, id DESC);
CREATE INDEX resources_by_status ON {s}.resources (account_id, kind, status, created DESC, id DESC);
CREATE INDEX resources_by_reference ON {s}.resources (account_id, kind, reference text_pattern_ops)
  WHERE reference IS NOT NULL;

CREATE TABLE {s}.events (
  account_id text NOT NULL,
  id text NOT NULL,
  type text NOT NULL,
  created bigint NOT NULL,
  livemode boolean NOT NULL,
  data json NOT NULL,
  request json NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX events_list ON {s}.events (account_id, created DESC, id DESC);
CREATE INDEX events_by_type ON {s}.events (account_id, type, created DESC, id DESC);
CREATE INDEX events_by_age ON {s}.events (created);

CREATE TABLE {s}.idempotency_keys (
  account_id text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  locked_at bigint,
  response json,
  created bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_by_expiry ON {s}.idempotency_keys (expires_at);

CREATE TABLE {s}.due_work (
  id text PRIMARY KEY,
  kind text NOT NULL,
  account_id text,
  payload jsonb NOT NULL,
  run_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  status text NOT NULL CHECK (status IN ('ready', 'dead')),
  dedupe_key text UNIQUE,
  created bigint NOT NULL
);
CREATE INDEX due_work_ready ON {s}.due_work (run_at, id) WHERE status = 'ready';

CREATE TABLE {s}.meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
`,
  },
  {
    version: 2,
    name: "webhook deliveries",
    sql: `
ALTER TABLE {s}.due_work ADD COLUMN group_key text;
-- The claim counts the unexpired leases of a group; only leased rows of a group are looked at.
CREATE INDEX due_work_leased_groups ON {s}.due_work (group_key) WHERE group_key IS NOT NULL AND lease_owner IS NOT NULL;

CREATE TABLE {s}.webhook_deliveries (
  account_id text NOT NULL,
  id text NOT NULL,
  endpoint_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  trigger text NOT NULL,
  status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  response_status integer,
  latency_ms integer NOT NULL,
  error text,
  created bigint NOT NULL,
  next_attempt_at bigint,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX webhook_deliveries_list ON {s}.webhook_deliveries (account_id, endpoint_id, created DESC, id DESC);
CREATE INDEX webhook_deliveries_by_status ON {s}.webhook_deliveries (account_id, endpoint_id, status, created DESC, id DESC);
CREATE INDEX webhook_deliveries_by_age ON {s}.webhook_deliveries (created);
`,
  },
  {
    version: 3,
    name: "rate limits",
    sql: `
CREATE TABLE {s}.rate_limits (
  key text NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
`,
  },
  {
    version: 4,
    name: "deposit addresses",
    sql: `
-- The one cross-account lookup: which payment intent an address belongs to.
CREATE TABLE {s}.deposit_addresses (
  chain text NOT NULL,
  address text NOT NULL,
  account_id text NOT NULL,
  resource text NOT NULL,
  created bigint NOT NULL,
  PRIMARY KEY (chain, address)
);
CREATE INDEX deposit_addresses_by_address ON {s}.deposit_addresses (address);
`,
  },
];
