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
  {
    version: 5,
    name: "due work mode",
    sql: `
-- Account work carries its account's mode as a column (typed due work), not in its payload.
ALTER TABLE {s}.due_work ADD COLUMN livemode boolean;
UPDATE {s}.due_work SET livemode = (payload->>'livemode')::boolean, payload = payload - 'livemode'
  WHERE payload ? 'livemode';
UPDATE {s}.due_work w SET livemode = a.livemode FROM {s}.accounts a
  WHERE w.account_id = a.id AND w.livemode IS NULL;
`,
  },
  {
    version: 6,
    name: "postings happen once",
    sql: `
-- A posting's id is derived from (resource, transition); its entries are numbered, and the
-- same (account, posting, line) twice is refused: a retried transition cannot post again.
ALTER TABLE {s}.ledger_entries ADD COLUMN line smallint;
UPDATE {s}.ledger_entries e SET line = n.line
  FROM (SELECT account_id, id, row_number() OVER (PARTITION BY account_id, posting_id ORDER BY id) - 1 AS line
        FROM {s}.ledger_entries) n
  WHERE e.account_id = n.account_id AND e.id = n.id;
ALTER TABLE {s}.ledger_entries ALTER COLUMN line SET NOT NULL;
CREATE UNIQUE INDEX ledger_entries_once ON {s}.ledger_entries (account_id, posting_id, line);
`,
  },
  {
    version: 7,
    name: "chain state",
    sql: `
-- What stateful chain adapters keep (src/ports/storage/chain-state.ts): counters such as nonces,
-- the transactions they signed, derived deposit addresses, how far each chain was read, the
-- deposits seen and the sweeps moving them. Not account-owned: it is the engine's custody.
CREATE TABLE {s}.chain_sequences (
  scope text PRIMARY KEY,
  next bigint NOT NULL
);

CREATE TABLE {s}.chain_transactions (
  chain text NOT NULL,
  transfer_id text NOT NULL,
  kind text NOT NULL,
  key_index integer NOT NULL,
  from_address text NOT NULL,
  to_address text NOT NULL,
  asset text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  nonce bigint,
  status text NOT NULL CHECK (status IN ('signed', 'final', 'failed', 'rejected')),
  reason text,
  attempts jsonb NOT NULL,
  mined_hash text,
  gas_cost numeric(78, 0),
  created bigint NOT NULL,
  updated bigint NOT NULL,
  PRIMARY KEY (chain, transfer_id)
);
CREATE INDEX chain_transactions_open ON {s}.chain_transactions (chain, created) WHERE status = 'signed';
CREATE INDEX chain_transactions_by_nonce ON {s}.chain_transactions (chain, from_address, nonce) WHERE nonce IS NOT NULL;

CREATE TABLE {s}.chain_transaction_hashes (
  chain text NOT NULL,
  tx_hash text NOT NULL,
  transfer_id text NOT NULL,
  PRIMARY KEY (chain, tx_hash)
);

CREATE TABLE {s}.chain_addresses (
  wallet text NOT NULL,
  key text NOT NULL,
  key_index integer NOT NULL,
  address text NOT NULL,
  chain text NOT NULL,
  from_block bigint NOT NULL,
  created bigint NOT NULL,
  PRIMARY KEY (wallet, key),
  UNIQUE (wallet, key_index)
);

CREATE TABLE {s}.chain_scan_tips (
  chain text PRIMARY KEY,
  number bigint NOT NULL,
  hash text NOT NULL
);

CREATE TABLE {s}.chain_blocks (
  chain text NOT NULL,
  number bigint NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (chain, number)
);

CREATE TABLE {s}.chain_deposits (
  chain text NOT NULL,
  transfer_id text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  tx_hash text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  block_time bigint NOT NULL,
  reverted_at bigint,
  sweep text,
  created bigint NOT NULL,
  PRIMARY KEY (chain, transfer_id)
);
CREATE INDEX chain_deposits_by_block ON {s}.chain_deposits (chain, block_number);

CREATE TABLE {s}.chain_sweeps (
  chain text NOT NULL,
  id text NOT NULL,
  address text NOT NULL,
  key_index integer NOT NULL,
  asset text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  status text NOT NULL CHECK (status IN ('topping_up', 'moving', 'done', 'abandoned')),
  attempt integer NOT NULL,
  reason text,
  created bigint NOT NULL,
  updated bigint NOT NULL,
  PRIMARY KEY (chain, id)
);
CREATE INDEX chain_sweeps_open ON {s}.chain_sweeps (chain, created) WHERE status IN ('topping_up', 'moving');
`,
  },
  {
    version: 8,
    name: "ledger entries by time",
    sql: `
-- Keyset pages of an account's own entries over time (the ledger entry list, report builds).
CREATE INDEX ledger_entries_own_by_created ON {s}.ledger_entries (account_id, created, id)
  WHERE book IN ('available', 'reserved', 'pending');
`,
  },
  {
    version: 9,
    name: "due work request",
    sql: `
-- The API request a chain of due work started from, for the events the work emits.
ALTER TABLE {s}.due_work ADD COLUMN request json;
`,
  },
  {
    version: 10,
    name: "simulated chains",
    sql: `
-- What the simulated chains of test mode keep (src/ports/storage/simulated-chains.ts), so a
-- restart loses no deposit a test helper acknowledged and no transfer the engine sent.
CREATE TABLE {s}.simulated_counters (
  scope text PRIMARY KEY,
  value numeric(78, 0) NOT NULL
);

CREATE TABLE {s}.simulated_transfers (
  chain text NOT NULL,
  transfer_id text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('out', 'in')),
  asset text NOT NULL,
  address text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  tx_hash text,
  included_at bigint,
  dropped_at bigint,
  refused text,
  failure text,
  created bigint NOT NULL,
  PRIMARY KEY (chain, transfer_id)
);
CREATE UNIQUE INDEX simulated_transfers_by_hash ON {s}.simulated_transfers (chain, tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX simulated_transfers_by_height ON {s}.simulated_transfers (chain, included_at);
`,
  },
  {
    version: 11,
    name: "api key lifecycle",
    sql: `
-- API keys get an id (how the API names them), a label, and a lifecycle: a rolled key expires
-- after its grace period, a revoked one stops at once. Keys made before get an id from their hash.
ALTER TABLE {s}.api_keys ADD COLUMN id text;
ALTER TABLE {s}.api_keys ADD COLUMN name text;
ALTER TABLE {s}.api_keys ADD COLUMN expires_at bigint;
ALTER TABLE {s}.api_keys ADD COLUMN revoked_at bigint;
UPDATE {s}.api_keys SET id = 'key_' || substr(hash, 1, 26) WHERE id IS NULL;
ALTER TABLE {s}.api_keys ALTER COLUMN id SET NOT NULL;
CREATE INDEX api_keys_by_account ON {s}.api_keys (account_id, created DESC, id DESC);
CREATE UNIQUE INDEX api_keys_id ON {s}.api_keys (account_id, id);
`,
  },
  {
    version: 12,
    name: "due work by group",
    sql: `
-- The next due items of one group (a webhook endpoint's deliveries), oldest first: a handler
-- hands its slot in the group on to them (WorkStore.takeNext).
CREATE INDEX due_work_group_ready ON {s}.due_work (group_key, run_at, id) WHERE status = 'ready' AND group_key IS NOT NULL;
`,
  },
  {
    version: 13,
    name: "adapter state",
    sql: `
-- The adapter-state seam (src/ports/adapter-state.ts): one ordered key-value table, a namespace
-- per adapter, keys in byte order. It replaces the tables of migrations 7 and 10, which held what
-- the EVM adapter and the simulated chains kept; their rows move here under the keys those
-- adapters now lay out themselves (adapters/chains/evm/evm-state.ts,
-- adapters/chains/simulated/simulated-state.ts, as of this migration), so a database keeps its
-- nonces, signed transactions, addresses, deposits, sweeps and its simulated world. Numbers in
-- keys are 20 zero-padded digits (encodeSortableUint); amounts are decimal strings in values.
CREATE TABLE {s}.adapter_state (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value json NOT NULL,
  PRIMARY KEY (namespace, key)
);

INSERT INTO {s}.adapter_state (namespace, key, value)
SELECT 'evm', 'seq/' || scope, to_json(next::text) FROM {s}.chain_sequences
UNION ALL
SELECT 'evm', 'tx/' || chain || '/' || transfer_id, json_build_object(
  'chain', chain, 'transferId', transfer_id, 'kind', kind, 'keyIndex', key_index, 'from', from_address,
  'to', to_address, 'asset', asset, 'amount', amount::text, 'nonce', nonce, 'status', status, 'reason', reason,
  'attempts', attempts::json, 'minedHash', mined_hash, 'gasCost', gas_cost::text, 'created', created, 'updated', updated)
FROM {s}.chain_transactions
UNION ALL
SELECT 'evm', 'txnonce/' || chain || '/' || lower(from_address) || '/' || lpad(nonce::text, 20, '0') || '/' || transfer_id, to_json(transfer_id)
FROM {s}.chain_transactions WHERE nonce IS NOT NULL
UNION ALL
SELECT 'evm', 'txhash/' || chain || '/' || tx_hash, to_json(transfer_id) FROM {s}.chain_transaction_hashes
UNION ALL
SELECT 'evm', 'addr/' || lower(wallet) || '/' || key, json_build_object(
  'wallet', wallet, 'key', key, 'index', key_index, 'address', address, 'chain', chain, 'fromBlock', from_block, 'created', created)
FROM {s}.chain_addresses
UNION ALL
SELECT 'evm', 'addridx/' || lower(wallet) || '/' || lpad(key_index::text, 20, '0'), to_json(key) FROM {s}.chain_addresses
UNION ALL
SELECT 'evm', 'tip/' || chain, json_build_object('chain', chain, 'number', number, 'hash', hash) FROM {s}.chain_scan_tips
UNION ALL
SELECT 'evm', 'block/' || chain || '/' || lpad(number::text, 20, '0'), to_json(hash) FROM {s}.chain_blocks
UNION ALL
SELECT 'evm', 'dep/' || chain || '/' || transfer_id, json_build_object(
  'chain', chain, 'transferId', transfer_id, 'address', address, 'asset', asset, 'amount', amount::text, 'txHash', tx_hash,
  'blockNumber', block_number, 'blockHash', block_hash, 'blockTime', block_time, 'revertedAt', reverted_at, 'sweep', sweep,
  'created', created)
FROM {s}.chain_deposits
UNION ALL
SELECT 'evm', 'depblock/' || chain || '/' || lpad(block_number::text, 20, '0') || '/' || transfer_id, to_json(transfer_id)
FROM {s}.chain_deposits
UNION ALL
SELECT 'evm', 'depreverted/' || chain || '/' || lpad(reverted_at::text, 20, '0') || '/' || transfer_id, to_json(transfer_id)
FROM {s}.chain_deposits WHERE reverted_at IS NOT NULL
UNION ALL
SELECT 'evm', 'depunswept/' || chain || '/' || lpad(block_number::text, 20, '0') || '/' || transfer_id, to_json(transfer_id)
FROM {s}.chain_deposits WHERE reverted_at IS NULL AND sweep IS NULL
UNION ALL
SELECT 'evm', 'sweep/' || chain || '/' || id, json_build_object(
  'chain', chain, 'id', id, 'address', address, 'keyIndex', key_index, 'asset', asset, 'amount', amount::text,
  'status', status, 'attempt', attempt, 'reason', reason, 'created', created, 'updated', updated)
FROM {s}.chain_sweeps
UNION ALL
SELECT 'evm', 'sweepopen/' || chain || '/' || lpad(created::text, 20, '0') || '/' || id, to_json(id)
FROM {s}.chain_sweeps WHERE status IN ('topping_up', 'moving')
UNION ALL
SELECT 'simulated-chains', 'counter/' || scope, to_json(value::text) FROM {s}.simulated_counters
UNION ALL
SELECT 'simulated-chains', 'sent/' || chain || '/' || transfer_id, CASE WHEN tx_hash IS NULL
  THEN json_build_object('refused', coalesce(refused, 'refused'))
  ELSE json_build_object('txHash', tx_hash, 'failure', failure) END
FROM {s}.simulated_transfers WHERE direction = 'out'
UNION ALL
-- a sent transfer's status from its own row: a reorganisation may have moved it since its hash was made
SELECT 'simulated-chains', 'hash/' || chain || '/' || tx_hash, json_build_object('includedAt', included_at, 'failure', failure)
FROM {s}.simulated_transfers WHERE direction = 'out' AND tx_hash IS NOT NULL AND included_at IS NOT NULL
UNION ALL
SELECT 'simulated-chains', 'sent-at/' || chain || '/' || lpad(included_at::text, 20, '0'), to_json(count(*)::text)
FROM {s}.simulated_transfers WHERE direction = 'out' AND included_at IS NOT NULL GROUP BY chain, included_at
UNION ALL
SELECT 'simulated-chains', 'deposit/' || chain || '/' || lpad(included_at::text, 20, '0') || '/' || transfer_id, json_build_object(
  'chain', chain, 'transferId', transfer_id, 'asset', asset, 'address', address, 'amount', amount::text,
  'txHash', tx_hash, 'includedAt', included_at, 'droppedAt', dropped_at, 'created', created)
FROM {s}.simulated_transfers WHERE direction = 'in'
UNION ALL
SELECT 'simulated-chains', 'deposit-dropped/' || chain || '/' || lpad(dropped_at::text, 20, '0') || '/' || transfer_id, to_json(included_at)
FROM {s}.simulated_transfers WHERE direction = 'in' AND dropped_at IS NOT NULL;

DROP TABLE {s}.chain_sequences, {s}.chain_transactions, {s}.chain_transaction_hashes, {s}.chain_addresses,
  {s}.chain_scan_tips, {s}.chain_blocks, {s}.chain_deposits, {s}.chain_sweeps,
  {s}.simulated_counters, {s}.simulated_transfers;
`,
  },
  {
    version: 14,
    name: "owners",
    sql: `
-- Processes that heartbeat (OwnerStore): alive until alive_until unless renewed; dead for good
-- once dead_at is set. What a dead owner holds is taken over at once.
CREATE TABLE {s}.owners (
  owner text PRIMARY KEY,
  alive_until bigint NOT NULL,
  dead_at bigint
);
CREATE INDEX owners_alive ON {s}.owners (alive_until) WHERE dead_at IS NULL;
-- the process whose request holds a key: free as soon as that owner is dead
ALTER TABLE {s}.idempotency_keys ADD COLUMN owner text;
-- a reap ends the leases of the owners it declares dead
CREATE INDEX due_work_lease_owner ON {s}.due_work (lease_owner) WHERE lease_owner IS NOT NULL;
`,
  },
  {
    version: 15,
    name: "sliding rate-limit windows",
    sql: `
-- Rate limits hold a sliding window (docs/decisions.md): a row counts a key's accepted hits at
-- one millisecond, and a take counts the rows of the last window. The fixed windows' counts
-- cannot be read as hits at a moment, so they go (at most a minute of counting is forgotten).
DELETE FROM {s}.rate_limits;
ALTER TABLE {s}.rate_limits RENAME COLUMN window_start TO at;
`,
  },
  {
    version: 16,
    name: "metadata search",
    sql: `
-- Lists search metadata (search=metadata[key]:value, docs/decisions.md): containment on the
-- document's metadata, indexed only where there is some, so documents without metadata (most
-- payouts of a batch) cost no index entry.
CREATE INDEX resources_metadata ON {s}.resources USING gin ((data->'metadata') jsonb_path_ops)
  WHERE data->'metadata' <> '{}'::jsonb;
`,
  },
  {
    version: 19,
    name: "api key last used",
    sql: `
-- When a key last authenticated a request (written at most once a minute per key).
ALTER TABLE {s}.api_keys ADD COLUMN last_used_at bigint;
`,
  },
  {
    version: 20,
    name: "due work keyed by account",
    sql: `
-- Due work carries its account first in every key, as the other account-owned tables do, so the
-- table can be partitioned (and distributed, docs/scaling.md) by account: the engine's own work
-- is kept under the account '' (never null), and a dedupe key is unique within its account.
UPDATE {s}.due_work SET account_id = '' WHERE account_id IS NULL;
ALTER TABLE {s}.due_work ALTER COLUMN account_id SET DEFAULT '', ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE {s}.due_work DROP CONSTRAINT due_work_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE {s}.due_work DROP CONSTRAINT due_work_dedupe_key_key,
  ADD CONSTRAINT due_work_dedupe UNIQUE (account_id, dedupe_key);
-- a worker completes or releases what it holds by the item's id
CREATE INDEX due_work_by_id ON {s}.due_work (id);
`,
  },
  {
    version: 22,
    name: "delivery log by event",
    sql: `
-- The delivery log filtered by event (GET /v1/webhook_endpoints/{id}/deliveries?event=evt_…)
-- and a resend's history: one event's attempts to one endpoint, newest first.
CREATE INDEX webhook_deliveries_by_event ON {s}.webhook_deliveries (account_id, endpoint_id, event_id, created DESC, id DESC);
`,
  },
  {
    version: 23,
    name: "delivery log: one index fewer",
    sql: `
-- An endpoint's newest attempts are read from webhook_deliveries_by_status, one range per status
-- merged (stores/deliveries.ts): each attempt logged updates four indexes, not five.
DROP INDEX {s}.webhook_deliveries_list;
`,
  },
  {
    version: 24,
    name: "active reservations by chain",
    sql: `
-- Reconciliation reads what the books still hold reserved on a chain (legs and conversions under
-- way, docs/reconciliation.md); resolved reservations, nearly all of them, cost no index entry.
CREATE INDEX reservations_active ON {s}.reservations (chain, account_id) WHERE status = 'active';
`,
  },
];
