/**
 * Deposit addresses: which payment intent an address on a chain belongs to.
 */

export interface DepositAddressRecord {
  chain: string;
  /** As the chain adapter gave it, and as inbound transfers report it. */
  address: string;
  accountId: string;
  /** The payment intent the address was made for. */
  resource: string;
  created: number;
}

/**
 * The one lookup that crosses accounts: a chain reports deposits by address, and the engine must
 * find whose they are. Addresses are unique per chain.
 */
export interface DepositAddressStore {
  /** Records new addresses; an address already recorded on its chain is an error (throws). */
  insert(records: DepositAddressRecord[]): Promise<void>;
  /**
   * Every recorded address among `addresses`, on any chain (an address made on one chain may
   * receive on others of its family too, and the engine must see a deposit that came the wrong way).
   */
  find(addresses: readonly string[]): Promise<DepositAddressRecord[]>;
}

/**
 * A value that survives `JSON.stringify` / `JSON.parse` unchanged (no bigint, undefined or
 * functions). Typed as `unknown` so core records need no index signatures; the core owns the
 * shapes and the adapters only store them.
 */
