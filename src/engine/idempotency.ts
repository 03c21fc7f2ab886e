import { createHash } from "node:crypto";
import { Turns } from "../concurrency/yield";
import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import type { IdempotencyRecord } from "../ports/storage/idempotency";
import type { Json, StorageTx } from "../ports/storage";
import { ownersAfterReap } from "../workers/process-lease";
import type { EngineDeps, IdempotencyClaim } from "./context";
import type { StorageWatch } from "./storage-watch";

export interface StoredResponse {
  status: number;
  body: Json;
}

export type BeginOutcome = { kind: "proceed"; claim: IdempotencyClaim } | { kind: "replay"; response: StoredResponse };

const KEY_MAX = 255;

/** Validates an Idempotency-Key header value (docs/decisions.md §3: 1 to 255 characters). */
export function checkIdempotencyKey(key: string): Result<string, ApiError> {
  if (key.length < 1 || key.length > KEY_MAX) {
    return fail("parameter_invalid", "Idempotency-Key must have 1 to 255 characters", { param: "Idempotency-Key" });
  }
  return ok(key);
}

/**
 * What makes two requests "the same" under one key: method, path with query, and the body. A
 * JSON body is canonicalised (sorted keys) so formatting does not count; other bodies count byte
 * for byte. `parsed` is the body already parsed (the HTTP binding has it), else it is parsed
 * here. The canonical text is hashed piece by piece in turns of about 20 ms, so a large body (a
 * 25,000-leg batch) never holds the event loop long.
 */
export async function requestFingerprint(method: string, pathWithQuery: string, rawBody: string, parsed?: { value: unknown }): Promise<string> {
  const hash = createHash("sha256").update(`${method.toUpperCase()} ${pathWithQuery}\n`);
  let body = parsed ?? null;
  if (!body && rawBody.trim() !== "") {
    try {
      body = { value: JSON.parse(rawBody) };
    } catch {
      // not JSON: compare the raw text
    }
  }
  if (!body) return hash.update(rawBody).digest("hex");
  const turns = new Turns();
  for (const part of canonicalParts(body.value)) {
    hash.update(part);
    await turns.next();
  }
  return hash.digest("hex");
}

/** A JSON value's canonical text (every object's keys sorted), in pieces: a long array's elements one by one. */
function* canonicalParts(value: unknown): Generator<string> {
  if (Array.isArray(value) && value.length > 64) {
    yield "[";
    for (let i = 0; i < value.length; i++) yield i === 0 ? canonicalJson(value[i]) : `,${canonicalJson(value[i])}`;
    yield "]";
  } else if (value && typeof value === "object" && !Array.isArray(value)) {
    yield "{";
    for (const [i, k] of Object.keys(value).sort().entries()) {
      yield `${i === 0 ? "" : ","}${JSON.stringify(k)}:`;
      yield* canonicalParts((value as Record<string, unknown>)[k]);
    }
    yield "}";
  } else {
    yield canonicalJson(value);
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Idempotency keys (docs/decisions.md §3; Brandur Leach's design). `begin` locks the key for the
 * request; the request's command saves its response in the same transaction as its effect
 * (`saveResponseWithin`); afterwards `finish` saves what is a completed answer and gives the key
 * back otherwise (`completesKey`), so the client may try again.
 */
export class IdempotencyService {
  /** Keys whose release failed (storage unavailable), retried until they are released or their lock runs out. */
  private readonly unreleased = new Map<string, IdempotencyClaim>();
  /** Set while a round of release retries waits on the clock; aborted by `stop`. */
  private retrying: AbortController | null = null;

  constructor(
    private readonly deps: EngineDeps,
    private readonly watch: StorageWatch,
  ) {}

  /** Runs a request holding `claim` (`run`), and says whether storage sessions it opened committed a write. */
  track<T>(run: () => Promise<T>): Promise<{ value: T; committed: boolean }> {
    return this.watch.track(run);
  }

  /**
   * Ends a request that held `claim` and answered `status` with `body`: a completed answer is
   * saved (unless its command saved it with its effect already); any other gives the key back.
   * A release that storage refuses now (it is unavailable) is retried in the background until
   * it goes through, or until the lock would have run out and the next request takes the key over.
   */
  async finish(claim: IdempotencyClaim, response: StoredResponse, committed: boolean): Promise<void> {
    if (completesKey(response.status, committed)) {
      // a success its command saved with its effect has nothing left to save (no session at all)
      if (response.status >= 200 && response.status < 300 && savedWithEffect.has(claim)) return;
      return this.saveIfHeld(claim, response);
    }
    try {
      await this.release(claim);
    } catch {
      this.releaseLater(claim); // the answer stands (it is an error already); the key follows when storage is back
    }
  }

  private releaseLater(claim: IdempotencyClaim): void {
    this.unreleased.set(`${claim.accountId}\u0000${claim.key}`, claim);
    if (!this.retrying) this.retryAfterPause();
  }

  /** The next round of release retries, after `RELEASE_RETRY_MS` on the engine's clock. */
  private retryAfterPause(): void {
    const waiting = new AbortController();
    this.retrying = waiting;
    this.deps.clock.sleep(RELEASE_RETRY_MS, waiting.signal).then(
      () => this.retryReleases(),
      () => undefined, // stopped
    );
  }

  private async retryReleases(): Promise<void> {
    const now = this.deps.clock.now();
    for (const [id, claim] of this.unreleased) {
      if (now - claim.lockedAt >= this.deps.config.idempotencyLockMs) {
        this.unreleased.delete(id); // the next request takes it over anyway
        continue;
      }
      try {
        await this.release(claim);
        this.unreleased.delete(id);
      } catch {
        break; // still unavailable: all of them wait for the next round
      }
    }
    this.retrying = null;
    if (this.unreleased.size > 0) this.retryAfterPause();
  }

  /** Stops retrying releases (the engine is closing): their locks run out instead. */
  stop(): void {
    this.retrying?.abort();
    this.retrying = null;
    this.unreleased.clear();
  }

  async begin(accountId: string, key: string, fingerprint: string): Promise<Result<BeginOutcome, ApiError>> {
    const now = this.deps.clock.now();
    const fresh: IdempotencyRecord = {
      accountId,
      key,
      fingerprint,
      lockedAt: now,
      response: null,
      created: now,
      expiresAt: now + this.deps.config.idempotencyTtlMs,
      owner: this.deps.process.claimant(),
    };
    // A fresh key, the common case, is one insert that stands alone: nothing follows it. A key
    // that exists makes the insert a no-op, and the transaction below decides about it. It need
    // not wait for the disk: the request's effect commits durably after it, or nothing happened.
    const first = await this.deps.storage.autocommit((tx) => tx.idempotency.claim(fresh), { durable: false });
    if (first.inserted) return ok({ kind: "proceed", claim: claimOf(fresh) });
    return this.deps.storage.transaction(async (tx): Promise<Result<BeginOutcome, ApiError>> => {
      const claimed = await tx.idempotency.claim(fresh);
      if (!claimed.inserted) {
        const existing = claimed.existing;
        if (existing.expiresAt > now) {
          if (existing.fingerprint !== fingerprint) {
            return fail("idempotency_key_reused", "This Idempotency-Key was used with a different method, path or body", { param: "Idempotency-Key" });
          }
          if (existing.response) return ok({ kind: "replay", response: existing.response });
          if (existing.lockedAt !== null && now - existing.lockedAt < this.deps.config.idempotencyLockMs && !(await holderDead(tx, existing, now))) {
            return fail("idempotency_key_in_use", "A request with this Idempotency-Key is still in progress", {
              param: "Idempotency-Key",
            });
          }
        }
        // Expired, or its holder died before saving a response (its process is known dead, or its
        // lock ran out): this request takes it over. Its lock differs from the dead one's even
        // within one millisecond, so the dead request's late save finds the key lost.
        const taken = { ...fresh, lockedAt: Math.max(now, (existing.lockedAt ?? now - 1) + 1) };
        await tx.idempotency.put(taken);
        return ok({ kind: "proceed", claim: claimOf(taken) });
      }
      return ok({ kind: "proceed", claim: claimOf(fresh) });
    });
  }

  /**
   * Saves a response the request's command did not save itself (an error after its rollback, or
   * a handler without a command), provided the request still holds the key.
   */
  async saveIfHeld(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    await this.deps.storage.transaction(async (tx) => {
      const claimed = await tx.idempotency.claim(recordOf(claim, claim.lockedAt, null));
      if (claimed.inserted || stillHeld(claimed.existing, claim)) await tx.idempotency.put(recordOf(claim, null, response));
    });
  }

  /** Gives the key back: the request was refused before it had any effect. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.deps.storage.transaction(async (tx) => {
      const claimed = await tx.idempotency.claim(recordOf(claim, claim.lockedAt, null));
      if (claimed.inserted || stillHeld(claimed.existing, claim)) await tx.idempotency.delete(claim.accountId, claim.key);
    });
  }
}

/** How long a failed release of a key waits before it is tried again. */
const RELEASE_RETRY_MS = 500;

/**
 * Whether an answer completes its key (saved and replayed) or gives the key back (docs/decisions.md
 * §3): a success (2xx) and a refusal the engine decided (402) complete it; a
 * server error (5xx) completes it only when the request committed something (`committed`): a
 * failure where nothing committed (a rolled-back transaction, storage unavailable) is not a
 * completed request, so the same key runs it again. Other 4xx come before any effect.
 */
export function completesKey(status: number, committed: boolean): boolean {
  return (status >= 200 && status < 300) || status === 402 || (status >= 500 && committed);
}

/** Claims whose request's command saved its response with its effect and committed (`responseSaved`). */
const savedWithEffect = new WeakSet<IdempotencyClaim>();

/** Tells `finish` that a command saved the response of the request holding `claim` with its effect, and committed. */
export function responseSaved(claim: IdempotencyClaim): void {
  savedWithEffect.add(claim);
}

/**
 * Saves the response under the key as `tx` commits, but only while this request still holds the
 * key: if another request took it over, the commit fails with `IdempotencyKeyLostError` and
 * `runCommand` answers `idempotency_key_in_use`, its effect rolled back.
 */
export async function saveResponseWithin(tx: StorageTx, claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
  await tx.idempotency.replaceAtCommit(recordOf(claim, null, response), { lockedAt: claim.lockedAt, responded: false }, { required: true });
}

/**
 * Replaces the response a request saved under its key with a newer view of the same result (a
 * payout whose legs went out right after it was created), so a replay shows what the first
 * answer showed. Only the same request's saved response is replaced; a key gone meanwhile stays gone.
 */
export async function replaceSavedResponse(tx: StorageTx, claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
  await tx.idempotency.replaceAtCommit(recordOf(claim, null, response), { lockedAt: null, responded: true }, { required: false });
}

/** Whether the process holding `existing` is known dead (it heartbeat, and was declared dead). */
async function holderDead(tx: StorageTx, existing: IdempotencyRecord, now: number): Promise<boolean> {
  const owner = existing.owner ?? null;
  return owner !== null && (await ownersAfterReap(tx, [owner], now)).get(owner)?.deadAt != null;
}

function stillHeld(existing: IdempotencyRecord, claim: IdempotencyClaim): boolean {
  return existing.lockedAt === claim.lockedAt && existing.fingerprint === claim.fingerprint && existing.response === null;
}

function claimOf(record: IdempotencyRecord): IdempotencyClaim {
  return {
    accountId: record.accountId,
    key: record.key,
    fingerprint: record.fingerprint,
    lockedAt: record.lockedAt!,
    owner: record.owner ?? null,
    created: record.created,
    expiresAt: record.expiresAt,
  };
}

function recordOf(claim: IdempotencyClaim, lockedAt: number | null, response: StoredResponse | null): IdempotencyRecord {
  return {
    accountId: claim.accountId,
    key: claim.key,
    fingerprint: claim.fingerprint,
    lockedAt,
    response,
    owner: claim.owner,
    created: claim.created,
    expiresAt: claim.expiresAt,
  };
}
