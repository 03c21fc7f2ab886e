import { type AdapterStateTx, type Json, decodeCounter, encodeSortableUint } from "../../../src/ports/public";

/**
 * What the Solana adapter keeps, in its adapter state (namespace `solana`, one chain per
 * namespace: the chain is always `solana`). Amounts and lamports are decimal strings.
 *
 * ```
 * tx/<transferId>              SolanaTransactionRecord: what was decided, saved before it is sent
 * sig/<signature>              → transferId (status is asked by signature; every attempt's)
 * seq/address_index            counter: the next deposit key index
 * addr/<intentId>              SolanaAddressRecord
 * addr-index/<n>               → intentId (addresses in the order made)
 * watch/<account>              SolanaWatchRecord: an account deposits arrive at, and how far it was read
 * dep/<depositId>              SolanaDepositRecord
 * dep-sig/<signature>/<account> → depositId (the latest deposit of that transaction to that account)
 * dep-open/<depositId>         → depositId: neither final nor reverted (its status is asked each read)
 * chg/<n>                      → depositId: the change log a cursor points into (counter chg-seq)
 * sweep-due/<depositId>        → depositId: final, not yet swept
 * sweep-flight/<depositId>     → depositId: its sweep was made and is followed to finality
 * hot-wallet                   → the hot wallet's address the state was made with
 * ```
 */
export const SOLANA_NAMESPACE = "solana";

export interface SolanaAttempt {
  signature: string;
  /** The signed wire transaction, base64. */
  raw: string;
  /** The block height after which it can never land (its blockhash has expired). */
  lastValidBlockHeight: string;
  signedAt: number;
}

export interface SolanaTransactionRecord {
  transferId: string;
  kind: "payout" | "sweep";
  asset: string;
  amount: string;
  to: string;
  /** Key indexes that sign, fee payer (the hot wallet, key 0) first. */
  signers: number[];
  /** The instructions' plan, enough to sign it again with a fresh blockhash. */
  plan: SolanaPlan;
  status: "signed" | "final" | "failed" | "rejected";
  reason: string | null;
  attempts: SolanaAttempt[];
  /** The attempt that landed, once final. */
  landed: string | null;
  /** What the fee payer paid in lamports (fees and rent), once final. */
  feeLamports: string | null;
  created: number;
  updated: number;
}

/** A transfer as instructions: SOL, or an SPL token transfer (the destination's ATA created when it was missing). */
export type SolanaPlan =
  | { type: "sol"; from: string; to: string; lamports: string; computeUnits: number; microLamports: string }
  | {
      type: "token";
      mint: string;
      decimals: number;
      owner: string;
      source: string;
      destinationOwner: string;
      destination: string;
      createDestination: boolean;
      amount: string;
      computeUnits: number;
      microLamports: string;
    };

export interface SolanaAddressRecord {
  intentId: string;
  index: number;
  address: string;
  created: number;
}

export interface SolanaWatchRecord {
  account: string;
  /** The deposit address (the owner of the token account, or the account itself for SOL). */
  owner: string;
  /** The deposit key that owns it. */
  keyIndex: number;
  asset: string;
  /** Newest finalized signature read: reads list signatures after it only. */
  until: string | null;
}

export interface SolanaDepositRecord {
  id: string;
  address: string;
  /** The deposit key of `address` (it signs the sweep). */
  keyIndex: number;
  account: string;
  asset: string;
  amount: string;
  signature: string;
  slot: number;
  blockTime: number;
  status: "included" | "final" | "reverted";
  confirmations: number;
  /** The sweep's transfer id once started; its outcome. */
  sweep: string | null;
  swept: "final" | "failed" | null;
}

const CHANGE_SEQ = "chg-seq";

/** Typed methods over one adapter-state transaction of the `solana` namespace. */
export class SolanaState {
  constructor(private readonly tx: AdapterStateTx) {}

  async getTransaction(transferId: string, lock = false): Promise<SolanaTransactionRecord | undefined> {
    return (await this.tx.get([`tx/${transferId}`], { lock })).get(`tx/${transferId}`) as SolanaTransactionRecord | undefined;
  }

  /** Records `address` as the hot wallet unless one is; answers the one recorded (the first). */
  async claimHotWallet(address: string): Promise<string> {
    return (await this.tx.insert([["hot-wallet", address]])).get("hot-wallet")!.value as string;
  }

  /** Inserts a record unless one exists; true when this call inserted it. */
  async insertTransaction(record: SolanaTransactionRecord): Promise<boolean> {
    const answer = (await this.tx.insert([[`tx/${record.transferId}`, record as unknown as Json]])).get(`tx/${record.transferId}`)!;
    if (!answer.inserted) return false;
    if (record.attempts.length > 0) await this.tx.put(record.attempts.map((a) => [`sig/${a.signature}`, record.transferId] as const));
    return true;
  }

  async putTransaction(record: SolanaTransactionRecord): Promise<void> {
    await this.tx.put([
      [`tx/${record.transferId}`, record as unknown as Json],
      ...record.attempts.map((a) => [`sig/${a.signature}`, record.transferId] as const),
    ]);
  }

  /** Every transaction the adapter made (reconciliation reads them all: their fees, their sweeps). */
  async listTransactions(): Promise<SolanaTransactionRecord[]> {
    return (await this.tx.list({ prefix: "tx/" })).map((e) => e.value as unknown as SolanaTransactionRecord);
  }

  /** Every deposit the adapter read (reconciliation: what each deposit account should hold). */
  async listDeposits(): Promise<SolanaDepositRecord[]> {
    return (await this.tx.list({ prefix: "dep/" })).map((e) => e.value as unknown as SolanaDepositRecord);
  }

  async findTransactionBySignature(signature: string): Promise<SolanaTransactionRecord | undefined> {
    const id = (await this.tx.get([`sig/${signature}`])).get(`sig/${signature}`) as string | undefined;
    return id === undefined ? undefined : this.getTransaction(id);
  }

  async isOurs(signature: string): Promise<boolean> {
    return (await this.tx.get([`sig/${signature}`])).has(`sig/${signature}`);
  }

  async getAddress(intentId: string): Promise<SolanaAddressRecord | undefined> {
    return (await this.tx.get([`addr/${intentId}`])).get(`addr/${intentId}`) as SolanaAddressRecord | undefined;
  }

  /** Takes the next deposit key index (1 and up: 0 is the hot wallet); locked until the transaction ends. */
  async takeAddressIndex(): Promise<number> {
    const next = (await this.tx.increment([["seq/address_index", 1n]])).get("seq/address_index")!;
    return Number(next);
  }

  async insertAddress(record: SolanaAddressRecord, watches: SolanaWatchRecord[]): Promise<void> {
    await this.tx.put([
      [`addr/${record.intentId}`, record as unknown as Json],
      [`addr-index/${encodeSortableUint(record.index)}`, record.intentId],
      ...watches.map((w) => [`watch/${w.account}`, w as unknown as Json] as const),
    ]);
  }

  async listAddresses(): Promise<SolanaAddressRecord[]> {
    const ids = (await this.tx.list({ prefix: "addr-index/" })).map((e) => `addr/${e.value as string}`);
    return [...(await this.tx.get(ids)).values()] as unknown as SolanaAddressRecord[];
  }

  async addressByIndex(index: number): Promise<SolanaAddressRecord | undefined> {
    const id = (await this.tx.get([`addr-index/${encodeSortableUint(index)}`])).get(`addr-index/${encodeSortableUint(index)}`) as string | undefined;
    return id === undefined ? undefined : this.getAddress(id);
  }

  async listWatches(): Promise<SolanaWatchRecord[]> {
    return (await this.tx.list({ prefix: "watch/" })).map((e) => e.value as unknown as SolanaWatchRecord);
  }

  async putWatch(watch: SolanaWatchRecord): Promise<void> {
    await this.tx.put([[`watch/${watch.account}`, watch as unknown as Json]]);
  }

  async latestDepositOf(signature: string, account: string): Promise<SolanaDepositRecord | undefined> {
    const id = (await this.tx.get([`dep-sig/${signature}/${account}`])).get(`dep-sig/${signature}/${account}`) as string | undefined;
    return id === undefined ? undefined : this.getDeposit(id);
  }

  async getDeposit(id: string): Promise<SolanaDepositRecord | undefined> {
    return (await this.tx.get([`dep/${id}`])).get(`dep/${id}`) as SolanaDepositRecord | undefined;
  }

  async getDeposits(ids: readonly string[]): Promise<SolanaDepositRecord[]> {
    return [...(await this.tx.get(ids.map((id) => `dep/${id}`))).values()] as unknown as SolanaDepositRecord[];
  }

  async openDepositIds(): Promise<string[]> {
    return (await this.tx.list({ prefix: "dep-open/" })).map((e) => e.value as string);
  }

  async dueSweepIds(limit: number): Promise<string[]> {
    return (await this.tx.list({ prefix: "sweep-due/" }, { limit })).map((e) => e.value as string);
  }

  /**
   * Saves a deposit new or changed: its indexes follow its status, and a change of status (or a
   * new deposit) goes on the change log the cursors read.
   */
  async putDeposit(deposit: SolanaDepositRecord, changed: boolean): Promise<void> {
    const id = deposit.id;
    await this.tx.put([
      [`dep/${id}`, deposit as unknown as Json],
      [`dep-sig/${deposit.signature}/${deposit.account}`, id],
    ]);
    if (deposit.status === "included") await this.tx.put([[`dep-open/${id}`, id]]);
    else await this.tx.delete([`dep-open/${id}`]);
    if (deposit.status === "final" && deposit.sweep === null) await this.tx.put([[`sweep-due/${id}`, id]]);
    else await this.tx.delete([`sweep-due/${id}`]);
    if (changed) {
      const n = (await this.tx.increment([[CHANGE_SEQ, 1n]])).get(CHANGE_SEQ)!;
      await this.tx.put([[`chg/${encodeSortableUint(n)}`, id]]);
    }
  }

  /** The deposit's sweep was made (`sweep` set): followed from now on. */
  async startSweep(deposit: SolanaDepositRecord): Promise<void> {
    await this.putDeposit(deposit, false);
    await this.tx.put([[`sweep-flight/${deposit.id}`, deposit.id]]);
  }

  /** The deposit's sweep is final or failed (`swept` set). */
  async finishSweep(deposit: SolanaDepositRecord): Promise<void> {
    await this.putDeposit(deposit, false);
    await this.tx.delete([`sweep-flight/${deposit.id}`]);
  }

  async listSweepsInFlight(): Promise<string[]> {
    return (await this.tx.list({ prefix: "sweep-flight/" })).map((e) => e.value as string);
  }

  /** Deposit ids changed after change number `after`, and the last change number. */
  async changesAfter(after: number): Promise<{ ids: string[]; last: number }> {
    const entries = await this.tx.list({ prefix: "chg/", from: `chg/${encodeSortableUint(after + 1)}` });
    const last = decodeCounter((await this.tx.get([CHANGE_SEQ])).get(CHANGE_SEQ) as string | undefined);
    return { ids: entries.map((e) => e.value as string), last: Number(last) };
  }
}
