import {
  assertStateNamespace,
  type AdapterStateStore,
  type AdapterStateTx,
  type ClaimRequest,
  type CommitOptions,
  type DueWorkRecord,
  type StorageAdapter,
  type StorageCapabilities,
  type StorageTx,
} from "../../src/ports/public";
import { claimDueWork } from "./claim";
import { isStalePlan, type PostgresDriver } from "./driver";
import { partitionCount, partitionTables } from "./layout";
import { MIGRATIONS } from "./migrations";
import { PgTx, type Row } from "./pg-tx";
import { StaleBalancesError } from "./tx-balances";
import { adapterStateTx } from "./stores/adapter-state";
import { KeyedTurns } from "./turns";
import { BalanceCache } from "./balance-cache";

export interface PostgresStorageOptions {
  driver: PostgresDriver;
  /** Schema holding the tables (created if missing); default `payrail`. */
  schema?: string;
  /** Attempts of a transaction that hits a serialization failure or deadlock (default 5). */
  maxAttempts?: number;
  /**
   * The partitioned layout (`layout.ts`, docs/scaling.md): the big tables hash-partitioned by
   * account into this many partitions (2 to 64), events and the delivery log also by day (their
   * retention drops whole days). `init` converts a plain schema once, rows and all; a schema
   * converted before keeps its layout whatever this says. Absent: plain tables.
   */
  partitions?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const RETRYABLE = new Set(["40001", "40P01"]);

/** PostgreSQL's error code of `e`, looking through wrappers (`cause`). */
export function sqlState(e: unknown): string | undefined {
  for (let cur: any = e, depth = 0; cur && depth < 5; cur = cur.cause, depth++) {
    if (typeof cur.code === "string" && /^[0-9A-Z]{5}$/.test(cur.code)) return cur.code;
  }
  return undefined;
}

/**
 * How long a transaction waits for its turn on balance rows behind others of this process before
 * it queues on the server's row lock regardless (`KeyedTurns`: an order, not a lock).
 */
const TURN_WAIT_MS = 50;

/**
 * Storage on PostgreSQL 15 (a server through `pg`, or embedded PGlite). Transactions run at READ
 * COMMITTED; balance rows are locked with `SELECT … FOR UPDATE` in key order (on a server, the
 * transactions of one process take turns in memory first, so one of them at a time waits on the
 * server's lock: a hot account's lock then passes from one to the next with one wakeup instead
 * of every waiter's), a CHECK constraint
 * keeps customer books non-negative as a second line of defence, and due work is claimed with
 * `FOR UPDATE SKIP LOCKED`. Writes are buffered per transaction and flushed as one statement
 * (a data-modifying CTE per table) before the next read and at commit, so a use case costs few
 * round trips.
 */
export class PostgresStorage implements StorageAdapter {
  readonly name = "postgres";
  readonly capabilities: StorageCapabilities;
  readonly schema: string;
  private readonly s: string;
  private readonly maxAttempts: number;
  private readonly wantPartitions: number;
  /** Hash partitions of each big table, as `init` found the schema (0: plain tables). */
  private partitions = 0;
  /** The balance rows this process's transactions last committed (`BalanceCache`), an optimistic transaction's first guess. */
  private readonly balances = new BalanceCache();
  /** Turns on balance rows among this process's transactions (`PgTxContext.takeTurns`). */
  private readonly turns: KeyedTurns | null;

  constructor(
    readonly driver: PostgresDriver,
    options: Omit<PostgresStorageOptions, "driver"> = {},
  ) {
    this.schema = options.schema ?? "payrail";
    if (!SCHEMA_NAME.test(this.schema)) throw new TypeError(`invalid schema name ${this.schema}`);
    this.s = `"${this.schema}"`;
    this.maxAttempts = options.maxAttempts ?? 5;
    if (options.partitions !== undefined && !(Number.isInteger(options.partitions) && options.partitions >= 2 && options.partitions <= 64)) {
      throw new TypeError(`partitions must be an integer from 2 to 64, got ${options.partitions}`);
    }
    this.wantPartitions = options.partitions ?? 0;
    this.capabilities = { concurrentTransactions: driver.concurrent };
    // one session at a time (PGlite) needs no queue in front of its row locks
    this.turns = driver.concurrent ? new KeyedTurns(TURN_WAIT_MS) : null;
  }

  async init(): Promise<void> {
    await this.driver.transaction(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`payrail.migrate.${this.schema}`]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await c.query(
        `CREATE TABLE IF NOT EXISTS ${this.s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const applied = new Set((await c.query<Row>(`SELECT version FROM ${this.s}.schema_migrations`)).rows.map((r) => Number(r.version)));
      for (const m of MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await c.exec(m.sql.replaceAll("{s}", this.s));
        await c.query(`INSERT INTO ${this.s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      }
      if (this.wantPartitions) await partitionTables(c, this.schema, this.wantPartitions);
      this.partitions = await partitionCount(c, this.schema);
    });
  }

  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options: CommitOptions = {}): Promise<T> {
    return this.run((tx) => tx.view(), fn, options);
  }

  adapterState(namespace: string): AdapterStateStore {
    assertStateNamespace(namespace);
    return {
      namespace,
      transaction: <T>(fn: (state: AdapterStateTx) => Promise<T>, options: CommitOptions = {}) => this.run((tx) => adapterStateTx(tx, namespace), fn, options),
    };
  }

  /**
   * One transaction over `view` of it, retried on a serialization failure, deadlock or stale plan;
   * an optimistic one (`CommitOptions.optimistic`) whose balance rows changed under it runs
   * again at once, with locks.
   */
  private async run<V, T>(view: (tx: PgTx) => V, fn: (view: V) => Promise<T>, options: CommitOptions): Promise<T> {
    let optimistic = options.optimistic ?? false;
    for (let attempt = 1; ; attempt++) {
      let tx = undefined as PgTx | undefined;
      try {
        const result = await this.driver.transaction(async (client) => {
          const durable = options.durable ?? true;
          const { partitions, balances: cache } = this;
          tx = new PgTx(client, this.s, { early: this.driver.concurrent, turns: this.turns, durable, optimistic, partitions, cache });
          let result: T;
          try {
            result = await fn(view(tx));
          } catch (e) {
            await tx.settle(); // an early flush still on the session goes before the rollback
            throw e;
          }
          await tx.flush(true);
          return result;
        }, options);
        // before its turns end (`finally`): the next to take them reads what this one left
        (tx as PgTx | undefined)?.balances.ended(true);
        return result;
      } catch (e) {
        const failed = tx as PgTx | undefined;
        failed?.balances.ended(false);
        failed?.ended(); // its turns go to the next transaction now, not after the back-off
        if (optimistic && e instanceof StaleBalancesError) {
          // a guess from the cache that was stale reads the rows next time; a reading that was, locks them
          if (!failed?.balances.usedCache) optimistic = false;
          continue;
        }
        const state = sqlState(e);
        const again = (state !== undefined && RETRYABLE.has(state)) || isStalePlan(e);
        if (attempt >= this.maxAttempts || !again) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
      } finally {
        tx?.ended();
      }
    }
  }

  /** One session without a transaction: each statement, and each flush of buffered writes, commits alone. */
  autocommit<T>(fn: (tx: StorageTx) => Promise<T>, options: CommitOptions = {}): Promise<T> {
    return this.driver.transaction(async (client) => {
      // no transaction to hold a day partition's locks in: retention deletes rows here (layout.ts)
      const tx = new PgTx(client, this.s, { autocommit: true, durable: options.durable ?? true });
      const result = await fn(tx.view());
      await tx.flush(true);
      return result;
    }, options);
  }

  claimDueWork(request: ClaimRequest): Promise<DueWorkRecord[]> {
    return claimDueWork(this.driver, this.s, this.schema, request);
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}
