/**
 * `payrail/ports`: everything an adapter written outside this package needs, and nothing of the
 * engine's internals. Every port as a type (storage and its stores, the adapter-state seam,
 * chain, venue, clock, delivery, screening, blobs, observer, tracer), the helpers the ports define, and
 * the core helpers the adapters of this package use themselves (they import the core only
 * through this entry, so an outside adapter can do whatever they do).
 *
 * ```ts
 * import type { ChainAdapter, StorageAdapter, AdapterStateTx } from "payrail/ports";
 * import { encodeSortableUint, parseAmount, AssetRegistry } from "payrail/ports";
 * ```
 *
 * Prove an adapter with `payrail/conformance`; docs/adapters.md walks through writing one.
 */

// ---- the ports -------------------------------------------------------------------------------

/** Every port and its records as types: storage and its stores, adapter state, chain, venue, clock, delivery, screening, blobs, observer, tracer. */
export type * from "./index";
/** Whether a clock is the manual one (tests and test helpers advance it). */
export { isManualClock } from "./clock";
/** Whether a chain adapter is a simulation the test helpers can drive (`ChainSimulationControl`). */
export { isChainSimulation } from "./chain";
/** The blob key grammar (`isBlobKey`), and the check a blob store runs on every key it is given. */
export { isBlobKey, assertBlobKey } from "./blobs";
/** Thrown by `IdempotencyStore.replaceAtCommit` when the key's row no longer stands as expected. */
export { IdempotencyKeyLostError } from "./storage/idempotency";
/** Thrown by `ResourceStore.update` when the document changed since the version it was read at. */
export { StaleResourceError } from "./storage/resources";
/**
 * What a storage adapter throws while storage is unavailable (a restart, a failover, a full disk:
 * `StorageUnavailableReason`); the engine answers 503 and retries. `isReadOnlyStoreMethod` tells
 * the store methods that only read from those that may write.
 */
export { StorageUnavailableError, isReadOnlyStoreMethod, type StorageUnavailableReason } from "./storage/unavailable";
/** The decision of `RateLimitStore.take` over a key's hits in its sliding window, for storage adapters. */
export { slidingWindowTake } from "./storage/rate-limits";
export { roomOf } from "./storage/due-work";
/** Whether an owner (a process that heartbeats) is dead: what it holds may be taken over. */
export { ownerDead } from "./storage/owners";
/** The observer that observes nothing, the list of its members, and several observers as one. */
export { NO_OBSERVER, OBSERVER_MEMBERS, combineObservers } from "./observer";
/** The tracer that records nothing (the default), and a function run in a span that ends when it settles. */
export { NO_TRACER, inSpan } from "./tracer";

// ---- the adapter-state seam: keys, ranges, numbers in keys, counters -------------------------

/** Whether a string is a key of the seam, and the check storage adapters run on every key. */
export { isStateKey, assertStateKey, MAX_STATE_KEY_LENGTH } from "./state-keys";
/** The check of a namespace name (`StorageAdapter.adapterState` runs it). */
export { assertStateNamespace } from "./state-keys";
/** The order of keys (UTF-8 bytes, PostgreSQL's `COLLATE "C"`), for storage adapters and tests. */
export { compareStateKeys } from "./state-keys";
/** A range as an inclusive lower and exclusive upper bound (`stateRangeBounds`), a prefix's end, membership. */
export { stateRangeBounds, prefixEnd, inStateRange } from "./state-keys";
/** Non-negative integers as fixed-width digits, so keys holding numbers sort as the numbers do. */
export { encodeSortableUint, decodeSortableUint, SORTABLE_UINT_DIGITS } from "./state-keys";
/** A counter's value as `AdapterStateTx.increment` stores it (a missing one is 0). */
export { decodeCounter } from "./state-keys";

// ---- money and assets ------------------------------------------------------------------------

/** The assets and chains an engine knows (the defaults of docs/decisions.md §1, extended by the host). */
export { AssetRegistry, DEFAULT_ASSETS, DEFAULT_CHAINS, type AssetDefinition, type ChainDefinition, type ChainFamily } from "../money/assets";
/** Decimal strings to base units, exactly (never rounding), and back in the shortest exact form. */
export { parseAmount, formatAmount, formatUnits } from "../money/amount";
/** Division with its rounding direction explicit (receive down, pay up), and exact allocation. */
export { divFloor, divCeil, allocate } from "../money/rounding";

// ---- storage adapters ------------------------------------------------------------------------

/**
 * The one order in which balance rows are locked (`LedgerStore.lockBalances` returns rows in it),
 * and a row's key as one text (`keyOf`, for an adapter's maps of rows).
 */
export { compareKeys, keyOf } from "../ledger/balance-keys";
/** Whether a book is a customer's (never below zero: `LedgerStore.appendEntries` must refuse it). */
export { isCustomerBook } from "../ledger/postings";
/** Runs async functions one at a time, in call order (a storage that serialises its transactions). */
export { Mutex } from "../concurrency/mutex";
/**
 * A queue that serves requests before background work (`inBackground`, `isBackground`), and a
 * cap on the sessions background work may hold: what a storage adapter with few sessions uses.
 */
export { PriorityMutex, BackgroundLimit, inBackground, isBackground } from "../concurrency/priority";

// ---- chain and venue adapters ----------------------------------------------------------------

/** Why an address is invalid for a chain family (null when valid), and EIP-55 checksummed addresses. */
export { addressProblem, toChecksumAddress } from "../chains/chain-address";
/** The core's exact venue formulas: what a pool or book pays for an input, and how much it can take. */
export { venueOut, venueCapacity, poolOut, routeOut, bookOut, bookDepth, zeroSizeRate, bestZeroSizeRate, FEE_SCALE, type Ratio } from "../quoting/venue-curves";
/** Prices a chain's gas asset in a payout asset: through the venues, or from a configured price. */
export { venueGasPricer, ratioOfPrice, type GasPricer } from "../quoting/gas-pricer";

// ---- delivery adapters and the rest ----------------------------------------------------------

/** A map that forgets its oldest entries beyond a size (caches of things that never change). */
export { BoundedMap } from "../collections/bounded-map";
/** Time-ordered prefixed ids, ids derived from their cause, and random tokens. */
export { IdGenerator, derivedId, randomToken, cryptoRandom, type IdPrefix, type RandomSource } from "../ids";
