import { readFileSync } from "node:fs";
import { join } from "node:path";
import solc from "solc";
import { custom, encodeDeployData, encodeFunctionData, type Abi, type Transport } from "viem";

/** A JSON-RPC endpoint: hardhat's in-process provider, or a `hardhat node` reached over HTTP. */
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<any>;
}

/** The mnemonic of the engine's keys in tests (hot wallet = index 0). Not hardhat's. */
export const TEST_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** Hardhat's in-process network (EDR), configured by `hardhat.config.cjs`: one per test file (process). */
export async function inProcessNode(): Promise<Eip1193> {
  const hardhat = (await import("hardhat")) as unknown as { default?: { network: { provider: Eip1193 } }; network?: { provider: Eip1193 } };
  return (hardhat.default ?? (hardhat as { network: { provider: Eip1193 } })).network.provider;
}

/** JSON-RPC over HTTP to a `hardhat node` on loopback. */
export function httpNode(url: string): Eip1193 {
  let id = 0;
  return {
    async request({ method, params = [] }) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      });
      const body = (await res.json()) as { result?: unknown; error?: { message: string; code: number; data?: unknown } };
      if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
      return body.result;
    },
  };
}

type Artifact = { abi: Abi; bytecode: `0x${string}` };
const compiled = new Map<string, Artifact>();

/** A contract of this folder's `file` compiled by solc-js 0.8.37 (cached per process; about 0.2 s). */
function artifact(file: string, contract: string): Artifact {
  const known = compiled.get(contract);
  if (known) return known;
  const source = readFileSync(join(import.meta.dirname, file), "utf8");
  const input = {
    language: "Solidity",
    sources: { [file]: { content: source } },
    settings: { evmVersion: "cancun", optimizer: { enabled: true, runs: 200 }, outputSelection: { "*": { [contract]: ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length) throw new Error(`solc: ${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n")}`);
  const made = output.contracts[file][contract];
  const result: Artifact = { abi: made.abi, bytecode: `0x${made.evm.bytecode.object}` };
  compiled.set(contract, result);
  return result;
}

/** `test-token.sol`: the ERC-20 the EVM tests pay in. */
export const testTokenArtifact = (): Artifact => artifact("test-token.sol", "TestToken");
/** `disperse.sol`: a multisend contract, one transaction paying many addresses. */
export const disperseArtifact = (): Artifact => artifact("disperse.sol", "Disperse");

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/**
 * Drives a test node: accounts of hardhat's mnemonic pay and deploy (they are unlocked), blocks
 * are mined on demand, and snapshots make real reorganisations (revert, then mine a new branch).
 */
export class EvmTestNode {
  readonly transport: Transport;
  private accounts: string[] = [];

  constructor(readonly provider: Eip1193) {
    this.transport = custom(provider);
  }

  async account(i: number): Promise<string> {
    if (!this.accounts.length) this.accounts = await this.provider.request({ method: "eth_accounts" });
    return this.accounts[i]!;
  }

  async head(): Promise<number> {
    return Number(BigInt(await this.provider.request({ method: "eth_blockNumber" })));
  }

  async mine(blocks = 1): Promise<void> {
    await this.provider.request({ method: "hardhat_mine", params: [hex(blocks)] });
  }

  async setAutomine(on: boolean): Promise<void> {
    await this.provider.request({ method: "evm_setAutomine", params: [on] });
  }

  async snapshot(): Promise<string> {
    return this.provider.request({ method: "evm_snapshot" });
  }

  async revert(id: string): Promise<void> {
    if (!(await this.provider.request({ method: "evm_revert", params: [id] }))) throw new Error(`no snapshot ${id}`);
  }

  async setBalance(address: string, wei: bigint): Promise<void> {
    await this.provider.request({ method: "hardhat_setBalance", params: [address, hex(wei)] });
  }

  async balance(address: string): Promise<bigint> {
    return BigInt(await this.provider.request({ method: "eth_getBalance", params: [address, "latest"] }));
  }

  /** Sends from an unlocked account; with automine on it is mined at once. Returns the hash. */
  async send(tx: { from: string; to?: string; data?: string; value?: bigint }): Promise<string> {
    return this.provider.request({
      method: "eth_sendTransaction",
      params: [{ from: tx.from, ...(tx.to ? { to: tx.to } : {}), data: tx.data ?? "0x", value: hex(tx.value ?? 0n) }],
    });
  }

  async deployToken(symbol: string, decimals: number): Promise<string> {
    return this.deploy(testTokenArtifact(), [symbol, symbol, decimals]);
  }

  /** Deploys the multisend contract; payers approve it per token (`approveDisperse`). */
  async deployDisperse(): Promise<string> {
    return this.deploy(disperseArtifact(), []);
  }

  private async deploy({ abi, bytecode }: Artifact, args: unknown[]): Promise<string> {
    const from = await this.account(0);
    const hash = await this.send({ from, data: encodeDeployData({ abi, bytecode, args } as never) });
    const receipt = await this.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
    if (!receipt?.contractAddress) throw new Error("deployment was not mined (is automine off?)");
    return receipt.contractAddress;
  }

  async tokenCall(token: string, functionName: string, args: unknown[], from?: string): Promise<string> {
    const data = encodeFunctionData({ abi: testTokenArtifact().abi, functionName, args } as never);
    return this.send({ from: from ?? (await this.account(0)), to: token, data });
  }

  async mint(token: string, to: string, amount: bigint): Promise<void> {
    await this.tokenCall(token, "mint", [to, amount]);
  }

  /** A payer (hardhat account `payer`) sends tokens: a deposit when `to` is a payment intent's address. */
  async pay(token: string, payer: number, to: string, amount: bigint): Promise<string> {
    const from = await this.account(payer);
    return this.tokenCall(token, "transfer", [to, amount], from);
  }

  /**
   * A payer sends one transaction paying each output through the multisend contract `disperse`
   * (which it approved for `token`): one `Transfer` log per output, the same address possibly
   * more than once.
   */
  async payMany(token: string, disperse: string, payer: number, outputs: readonly { address: string; amount: bigint }[]): Promise<string> {
    const data = encodeFunctionData({
      abi: disperseArtifact().abi,
      functionName: "disperseToken",
      args: [token, outputs.map((o) => o.address), outputs.map((o) => o.amount)],
    } as never);
    return this.send({ from: await this.account(payer), to: disperse, data });
  }

  async tokenBalance(token: string, who: string): Promise<bigint> {
    const data = encodeFunctionData({ abi: testTokenArtifact().abi, functionName: "balanceOf", args: [who] } as never);
    return BigInt(await this.provider.request({ method: "eth_call", params: [{ to: token, data }, "latest"] }));
  }
}
