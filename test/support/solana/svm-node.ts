import { createHash } from "node:crypto";
import {
  type Transaction,
  address,
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
} from "@solana/kit";
import { AccountState, TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintEncoder, getTokenDecoder, getTokenEncoder } from "@solana-program/token";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";

/** One token balance of a transaction's meta, in the RPC's wire shape. */
export interface WireTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** A transaction the node executed into a block. */
export interface Landed {
  signature: string;
  slot: number;
  err: unknown | null;
  fee: number;
  /** Every key the transaction touched: its static keys, then those it loaded from lookup tables (writable, then readonly). */
  accountKeys: string[];
  /** The keys loaded from address lookup tables (the tail of `accountKeys`). */
  loaded: { writable: string[]; readonly: string[] };
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  recentBlockhash: string;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: WireTokenBalance[];
  postTokenBalances: WireTokenBalance[];
  logs: string[];
  unitsConsumed: number;
  priorityMicroLamports: number;
}

interface Block {
  slot: number;
  blockhash: string;
  signatures: string[];
}

interface Snapshot {
  svm: Uint8Array;
  blocks: Block[];
  landed: Map<string, Landed>;
}

const SIGNATURE_FEE = 5000;
const LOOKUP_TABLE_HEADER = 56;
const GENESIS_SECONDS = 1_790_000_000;
const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";

/**
 * A Solana validator in process for tests: litesvm runs the real programs (System, SPL Token,
 * Associated Token Account, Compute Budget) on real signed transactions, and this class keeps
 * what litesvm does not: blocks (one slot each, none skipped), a blockhash per block valid for
 * `blockhashValidity` blocks, commitment levels (a block is `confirmed` once one block is built
 * on it and `finalized` `finalityDepth` blocks later), signature statuses, the signatures of
 * each address, transaction metas with balances before and after, and forks: `snapshot()` then
 * `dropFork(snapshot)` replaces every block built since by an empty, longer branch.
 *
 * Transactions sent are executed into a new block at once (like an automining node), unless
 * `holdSends` keeps them (they land at the next `mine`) or `dropSends` loses them.
 */
export class SvmNode {
  svm: LiteSVM;
  blocks: Block[] = [];
  landed = new Map<string, Landed>();
  /** Sends accepted but not yet executed (`holdSends`). */
  private held: Transaction[] = [];
  holdSends = false;
  /** Sends answered with their signature and thrown away, like packets lost on the way to the leader. */
  dropSends = false;
  /** Signatures of the sends the node received, in order (re-sends included). */
  readonly received: string[] = [];
  /** Priority fee per compute unit the node reports as recent (`getRecentPrioritizationFees`). */
  recentPriorityFee = 1000;
  private forks = 0;

  constructor(
    readonly finalityDepth = 4,
    readonly blockhashValidity = 10,
  ) {
    this.svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
    this.newBlock([]);
  }

  get tip(): number {
    return this.blocks.at(-1)!.slot;
  }

  /** The highest slot at a commitment. */
  slotAt(commitment: string | undefined): number {
    if (commitment === "processed") return this.tip;
    if (commitment === "confirmed") return Math.max(0, this.tip - 1);
    return Math.max(0, this.tip - this.finalityDepth);
  }

  latestBlockhash(commitment?: string): { slot: number; blockhash: string; lastValidBlockHeight: number } {
    const slot = this.slotAt(commitment ?? "finalized");
    return { slot, blockhash: this.blocks[slot]!.blockhash, lastValidBlockHeight: slot + this.blockhashValidity };
  }

  /** Builds `n` blocks, the held transactions in the first. */
  mine(n = 1): void {
    for (let i = 0; i < n; i++) {
      const held = this.held;
      this.held = [];
      this.newBlock(held);
    }
  }

  /** Receives a wire transaction: its signature, or an error for one that cannot be decoded. */
  send(wire: Uint8Array): string {
    const tx = getTransactionDecoder().decode(wire);
    const signature = signatureOf(tx);
    this.received.push(signature);
    if (this.dropSends) return signature;
    if (this.holdSends) this.held.push(tx);
    else this.newBlock([tx]);
    return signature;
  }

  /** Why a transaction could not land now (a blockhash unknown or expired, already processed), or null. */
  refusal(tx: Transaction, slot: number): string | null {
    const signature = signatureOf(tx);
    if (this.landed.has(signature)) return "AlreadyProcessed";
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const issued = this.blocks.findIndex((b) => b.blockhash === message.lifetimeToken);
    if (issued < 0 || slot > issued + this.blockhashValidity) return "BlockhashNotFound";
    return null;
  }

  simulate(wire: Uint8Array, sigVerify: boolean): { err: unknown; logs: string[]; unitsConsumed: number } {
    const tx = getTransactionDecoder().decode(wire);
    const refused = sigVerify ? this.refusal(tx, this.tip + 1) : null;
    if (refused) return { err: refused, logs: [], unitsConsumed: 0 };
    this.svm.withSigverify(sigVerify);
    try {
      const out = this.svm.simulateTransaction(tx);
      if (out instanceof FailedTransactionMetadata) {
        return { err: wireError(out.err()), logs: out.meta().logs(), unitsConsumed: Number(out.meta().computeUnitsConsumed()) };
      }
      const meta = out.meta();
      return { err: null, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()) };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  /** A point to come back to with `dropFork`. */
  snapshot(): Snapshot {
    return { svm: this.svm.toBytes(), blocks: this.blocks.map((b) => ({ ...b, signatures: [...b.signatures] })), landed: new Map(this.landed) };
  }

  /**
   * A fork: every block since `at` is dropped with its transactions, and an empty branch one
   * block longer than the dropped one is built in its place (new blockhashes). Transactions held
   * for the next block are lost too, unless `keepHeld` (the new leader got them): they land in its
   * first block if their blockhash is on the new branch and still valid.
   */
  dropFork(at: Snapshot, options: { keepHeld?: boolean } = {}): void {
    const dropped = this.tip - at.blocks.at(-1)!.slot;
    const held = options.keepHeld ? this.held : [];
    this.svm = LiteSVM.fromBytes(at.svm).withBlockhashCheck(false).withTransactionHistory(0n);
    this.blocks = at.blocks.map((b) => ({ ...b, signatures: [...b.signatures] }));
    this.landed = new Map(at.landed);
    this.held = held;
    this.forks++;
    this.mine(dropped + 1);
  }

  /** Statuses as `getSignatureStatuses` answers them. */
  status(signature: string) {
    const l = this.landed.get(signature);
    if (!l) return null;
    const depth = this.tip - l.slot;
    const finalized = depth >= this.finalityDepth;
    return {
      slot: l.slot,
      confirmations: finalized ? null : depth,
      err: l.err,
      status: l.err === null ? { Ok: null } : { Err: l.err },
      confirmationStatus: finalized ? "finalized" : depth >= 1 ? "confirmed" : "processed",
    };
  }

  /** Signatures touching `account`, newest first, at `commitment` or above. */
  signaturesFor(account: string, commitment: string | undefined): Landed[] {
    const top = this.slotAt(commitment === "finalized" ? "finalized" : "confirmed");
    const out: Landed[] = [];
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const block = this.blocks[i]!;
      if (block.slot > top) continue;
      for (const sig of [...block.signatures].reverse()) {
        const l = this.landed.get(sig)!;
        if (l.accountKeys.includes(account)) out.push(l);
      }
    }
    return out;
  }

  blockTime(slot: number): number {
    return GENESIS_SECONDS + Math.floor((slot * 400) / 1000);
  }

  // ---- test setup: accounts written directly ----------------------------------------------

  airdrop(to: string, amount: bigint): void {
    const r = this.svm.airdrop(address(to), lamports(amount));
    if (r instanceof FailedTransactionMetadata) throw new Error(`airdrop failed: ${r.toString()}`);
  }

  balance(of: string): bigint {
    return this.svm.getBalance(address(of)) ?? 0n;
  }

  setMint(mint: string, decimals: number, authority: string): void {
    const data = getMintEncoder().encode({ mintAuthority: address(authority), supply: 10n ** 15n, decimals, isInitialized: true, freezeAuthority: null });
    this.svm.setAccount({
      address: address(mint),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      lamports: this.svm.minimumBalanceForRentExemption(BigInt(data.length)),
      data: new Uint8Array(data),
      executable: false,
      space: BigInt(data.length),
    } as never);
  }

  /** Writes a token account of `owner` for `mint` at `at` holding `amount` (frozen when asked). */
  setTokenAccount(at: string, mint: string, owner: string, amount: bigint, frozen = false): void {
    const data = getTokenEncoder().encode({
      mint: address(mint),
      owner: address(owner),
      amount,
      delegate: null,
      state: frozen ? AccountState.Frozen : AccountState.Initialized,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    });
    this.svm.setAccount({
      address: address(at),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      lamports: this.svm.minimumBalanceForRentExemption(BigInt(data.length)),
      data: new Uint8Array(data),
      executable: false,
      space: BigInt(data.length),
    } as never);
  }

  /** A token account's amount (0 when it does not exist). */
  tokenBalance(at: string): bigint {
    return this.tokenAccount(at)?.amount ?? 0n;
  }

  tokenAccount(at: string) {
    const account = this.svm.getAccount(address(at));
    if (!account.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== 165) return null;
    return getTokenDecoder().decode(account.data);
  }

  /**
   * An account as it stood at the end of block `slot` (what a node answers at a commitment whose
   * slot that is): what it holds now, less what the transactions of later blocks of the chain
   * changed, lamports and, for a token account, its amount. Null when it did not exist then.
   * Accounts written directly (test setup) count as always having been so.
   */
  accountAt(at: string, slot: number): { lamports: bigint; tokenAmount: bigint | null; data: Uint8Array; owner: string; executable: boolean } | null {
    const account = this.svm.getAccount(address(at));
    if (!account.exists) return null;
    let lamports: bigint = account.lamports;
    let tokenAmount = this.tokenAccount(at)?.amount ?? null;
    const units = (list: WireTokenBalance[], index: number) => BigInt(list.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? "0");
    for (const block of this.blocks) {
      if (block.slot <= slot) continue;
      for (const sig of block.signatures) {
        const l = this.landed.get(sig)!;
        const i = l.accountKeys.indexOf(at);
        if (i < 0) continue;
        lamports -= BigInt(l.postBalances[i]!) - BigInt(l.preBalances[i]!);
        if (tokenAmount !== null) tokenAmount -= units(l.postTokenBalances, i) - units(l.preTokenBalances, i);
      }
    }
    if (lamports === 0n) return null; // made by a later block
    const data = new Uint8Array(account.data);
    if (tokenAmount !== null) new DataView(data.buffer).setBigUint64(64, tokenAmount, true);
    return { lamports, tokenAmount, data, owner: account.programAddress, executable: account.executable };
  }

  mintDecimals(mint: string): number {
    const account = this.svm.getAccount(address(mint));
    if (!account.exists) throw new Error(`no mint ${mint}`);
    return getMintDecoder().decode(account.data).decimals;
  }

  // ---- blocks ---------------------------------------------------------------------------------

  private newBlock(txs: Transaction[]): void {
    const slot = this.blocks.length;
    const blockhash = getBase58Decoder().decode(createHash("sha256").update(`block:${slot}:fork:${this.forks}`).digest());
    const block: Block = { slot, blockhash, signatures: [] };
    for (const tx of txs) {
      if (this.refusal(tx, slot)) continue; // expired or a duplicate: dropped, as a leader would
      const l = this.execute(tx, slot);
      if (l) block.signatures.push(l.signature);
    }
    this.blocks.push(block);
    this.svm.warpToSlot(BigInt(slot));
  }

  private execute(tx: Transaction, slot: number): Landed | null {
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const loaded = this.lookups(message);
    const keys = [...message.staticAccounts.map(String), ...loaded.writable, ...loaded.readonly];
    const pre = keys.map((k) => this.balance(k));
    const preTokens = this.tokenBalances(keys);
    const out = this.svm.sendTransaction(tx);
    const failed = out instanceof FailedTransactionMetadata;
    const meta = failed ? out.meta() : out;
    const err = failed ? wireError(out.err()) : null;
    // a transaction that fails before execution (unknown fee payer, bad signature) is not included
    if (failed && typeof err === "string" && ["AccountNotFound", "SignatureFailure", "InsufficientFundsForFee", "InvalidAccountForFee"].includes(err)) {
      return null;
    }
    const priority = priorityOf(message);
    const fee = SIGNATURE_FEE * message.header.numSignerAccounts + Math.ceil((priority.microLamports * priority.units) / 1_000_000);
    const landed: Landed = {
      signature: signatureOf(tx),
      slot,
      err,
      fee,
      accountKeys: keys,
      loaded,
      header: {
        numRequiredSignatures: message.header.numSignerAccounts,
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: message.lifetimeToken,
      preBalances: pre.map(Number),
      postBalances: keys.map((k) => Number(this.balance(k))),
      preTokenBalances: preTokens,
      postTokenBalances: this.tokenBalances(keys),
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      priorityMicroLamports: priority.microLamports,
    };
    this.landed.set(landed.signature, landed);
    return landed;
  }

  /** The addresses a v0 message loads from address lookup tables, read from the tables' accounts. */
  private lookups(message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>): { writable: string[]; readonly: string[] } {
    const out = { writable: [] as string[], readonly: [] as string[] };
    const lookups = "addressTableLookups" in message ? (message.addressTableLookups ?? []) : [];
    const decoder = getAddressDecoder();
    for (const lookup of lookups) {
      const table = this.svm.getAccount(lookup.lookupTableAddress);
      if (!table.exists) continue; // the runtime refuses the transaction
      const at = (i: number) => decoder.decode(table.data.slice(LOOKUP_TABLE_HEADER + 32 * i, LOOKUP_TABLE_HEADER + 32 * (i + 1)));
      out.writable.push(...lookup.writableIndexes.map(at));
      out.readonly.push(...lookup.readonlyIndexes.map(at));
    }
    return out;
  }

  /**
   * Writes an address lookup table holding `addresses` at `at` (as the Address Lookup Table
   * program lays it out: a 56-byte header, active, no authority, then the addresses).
   */
  setLookupTable(at: string, addresses: string[]): void {
    const data = new Uint8Array(LOOKUP_TABLE_HEADER + 32 * addresses.length);
    const view = new DataView(data.buffer);
    view.setUint32(0, 1, true); // a lookup table
    view.setBigUint64(4, 0xffff_ffff_ffff_ffffn, true); // never deactivated
    addresses.forEach((a, i) => data.set(getAddressEncoder().encode(address(a)) as Uint8Array, LOOKUP_TABLE_HEADER + 32 * i));
    this.svm.setAccount({
      address: address(at),
      programAddress: address("AddressLookupTab1e1111111111111111111111111"),
      lamports: this.svm.minimumBalanceForRentExemption(BigInt(data.length)),
      data,
      executable: false,
      space: BigInt(data.length),
    } as never);
  }

  private tokenBalances(keys: string[]): WireTokenBalance[] {
    const out: WireTokenBalance[] = [];
    keys.forEach((k, accountIndex) => {
      const token = this.tokenAccount(k);
      if (!token) return;
      const decimals = this.mintDecimals(token.mint);
      const ui = uiAmount(token.amount, decimals);
      out.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: TOKEN_PROGRAM_ADDRESS,
        uiTokenAmount: { amount: token.amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
      });
    });
    return out;
  }
}

function signatureOf(tx: Transaction): string {
  const first = Object.values(tx.signatures)[0];
  if (!first) throw new Error("unsigned transaction");
  return getBase58Decoder().decode(first);
}

/** The compute-unit limit and price a message sets (defaults when it sets none). */
function priorityOf(message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>): { units: number; microLamports: number } {
  let units = 200_000;
  let microLamports = 0;
  const instructions = "instructions" in message ? message.instructions : [];
  for (const ix of instructions) {
    if (String(message.staticAccounts[ix.programAddressIndex]) !== COMPUTE_BUDGET || !ix.data) continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2) units = view.getUint32(1, true);
    if (ix.data[0] === 3) microLamports = Number(view.getBigUint64(1, true));
  }
  return { units, microLamports };
}

function uiAmount(amount: bigint, decimals: number): string {
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

/** litesvm's error as the RPC writes a TransactionError: `"Name"` or `{ "InstructionError": [i, "Name" | { "Custom": n }] }`. */
export function wireError(err: unknown): unknown {
  if (typeof err === "number") return FIELDLESS[err] ?? `Error${err}`;
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown; toString(): string } | null;
  if (e && typeof e.index === "number" && typeof e.err === "function") {
    const inner = e.err() as number | { code?: number };
    return {
      InstructionError: [
        e.index,
        typeof inner === "number" ? (INSTRUCTION_FIELDLESS[inner] ?? `Error${inner}`) : typeof inner.code === "number" ? { Custom: inner.code } : String(inner),
      ],
    };
  }
  if (e && typeof e.accountIndex === "number") return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  return String(e);
}

const FIELDLESS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
];

const INSTRUCTION_FIELDLESS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
];

export const base64Bytes = (text: string): Uint8Array => new Uint8Array(getBase64Encoder().encode(text));
