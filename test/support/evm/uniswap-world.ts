import { createRequire } from "node:module";
import { decodeFunctionResult, encodeDeployData, encodeFunctionData, type Abi } from "viem";
import { MnemonicSigner } from "../../../adapters/chains/evm";
import { type Eip1193, EvmTestNode, TEST_MNEMONIC, inProcessNode, testTokenArtifact } from "./evm-node";

const require = createRequire(import.meta.url);

interface Artifact {
  abi: Abi;
  bytecode: `0x${string}`;
}

/** A contract of the published Uniswap v2 packages, as built (`build/*.json`): its ABI and creation code. */
function uniswapArtifact(path: string): Artifact {
  const json = require(path) as { abi: Abi; evm: { bytecode: { object: string } } };
  const code = json.evm.bytecode.object;
  return { abi: json.abi, bytecode: (code.startsWith("0x") ? code : `0x${code}`) as `0x${string}` };
}

export const FACTORY = uniswapArtifact("@uniswap/v2-core/build/UniswapV2Factory.json");
export const PAIR = uniswapArtifact("@uniswap/v2-core/build/UniswapV2Pair.json");
export const ROUTER = uniswapArtifact("@uniswap/v2-periphery/build/UniswapV2Router02.json");
export const WETH9 = uniswapArtifact("@uniswap/v2-periphery/build/WETH9.json");

/** The chain the Uniswap world plays (USDC, USDT, EURC and ETH all live on it in the registry). */
export const UNI_CHAIN = "ethereum";
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
/** What the engine's hot wallet holds of each token, and in ETH, at the start of a world. */
export const HOT_TOKEN_UNITS = 10_000_000n * E6;
export const HOT_ETH_WEI = 1_000n * E18;

/** The pools at the start: USDC/ETH and USDT/ETH at 3,000, USDC/USDT at par (shallower), EURC/ETH at 3,240. No EURC/USDC pool. */
export const POOLS: [string, bigint, string, bigint][] = [
  ["USDC", 3_000_000n * E6, "ETH", 1_000n * E18],
  ["USDT", 3_000_000n * E6, "ETH", 1_000n * E18],
  ["USDC", 500_000n * E6, "USDT", 500_000n * E6],
  ["EURC", 3_240_000n * E6, "ETH", 1_200n * E18],
];

export interface UniswapWorld {
  node: EvmTestNode;
  signer: MnemonicSigner;
  /** The engine's hot wallet (key 0 of the signer). */
  hot: string;
  factory: string;
  router: string;
  weth: string;
  /** Asset code → token: ETH is WETH9. */
  tokens: Record<string, string>;
  /** The hardhat account that provided the liquidity and trades as a third party (index 1). */
  trader: string;
  /** The chain as deployed; `restore()` brings it back (each test starts from it). */
  restore(): Promise<void>;
  /** `router.getAmountsOut(amountIn, path)` of the contracts, at the latest block. */
  amountsOut(amountIn: bigint, path: string[]): Promise<bigint[]>;
  /** A third party swaps `amountIn` of `path[0]` for `path[last]` through the router (mined at once). */
  trade(amountIn: bigint, path: string[]): Promise<void>;
  balance(asset: string, who: string): Promise<bigint>;
  pair(a: string, b: string): Promise<string>;
}

let world: Promise<UniswapWorld> | null = null;

/**
 * The in-process hardhat chain of this test file with the published Uniswap v2 contracts
 * deployed from their build artifacts (WETH9, the factory, Router02), three test ERC-20s (USDC,
 * USDT, EURC, 6 decimals), liquidity in four pools, the hot wallet funded in tokens and ETH,
 * and a snapshot of that state to go back to.
 */
export function uniswapWorld(): Promise<UniswapWorld> {
  world ??= inProcessNode().then(buildUniswapWorld);
  return world;
}

/** The same world on any node (a `hardhat node` over HTTP, for the host's tests). */
export async function buildUniswapWorld(provider: Eip1193): Promise<UniswapWorld> {
  const node = new EvmTestNode(provider);
  const signer = new MnemonicSigner(TEST_MNEMONIC);
  const hot = await signer.address(0);
  const deployer = await node.account(0);
  const trader = await node.account(1);
  const deploy = async (artifact: Artifact, args: unknown[]) => {
    const hash = await node.send({ from: deployer, data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args } as never) });
    const receipt = await node.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
    if (!receipt?.contractAddress || receipt.status !== "0x1") throw new Error("deployment failed");
    return receipt.contractAddress as string;
  };
  const call = async (to: string, abi: Abi, functionName: string, args: unknown[], from = deployer, value = 0n) => {
    const hash = await node.send({ from, to, data: encodeFunctionData({ abi, functionName, args } as never), value });
    const receipt = await node.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
    if (receipt?.status !== "0x1") throw new Error(`${functionName} failed`);
  };
  const read = async (to: string, abi: Abi, functionName: string, args: unknown[]) => {
    const data = await node.provider.request({
      method: "eth_call",
      params: [{ to, data: encodeFunctionData({ abi, functionName, args } as never) }, "latest"],
    });
    return decodeFunctionResult({ abi, functionName, data } as never) as unknown;
  };

  const weth = await deploy(WETH9, []);
  const factory = await deploy(FACTORY, [deployer]);
  const router = await deploy(ROUTER, [factory, weth]);
  const tokens: Record<string, string> = { ETH: weth };
  for (const symbol of ["USDC", "USDT", "EURC"]) tokens[symbol] = await node.deployToken(symbol, 6);

  const token = testTokenArtifact().abi;
  const deadline = 2n ** 40n;
  for (const who of [deployer, trader, hot]) {
    for (const symbol of ["USDC", "USDT", "EURC"])
      await node.mint(tokens[symbol]!, who, symbol === "USDC" || who !== hot ? 100_000_000n * E6 : HOT_TOKEN_UNITS);
    await node.setBalance(who, who === hot ? HOT_ETH_WEI : 100_000n * E18);
  }
  for (const who of [deployer, trader]) {
    await call(weth, WETH9.abi, "deposit", [], who, 20_000n * E18);
    for (const address of Object.values(tokens)) await call(address, token, "approve", [router, 2n ** 255n], who);
  }
  for (const [a, amountA, b, amountB] of POOLS) {
    await call(router, ROUTER.abi, "addLiquidity", [tokens[a], tokens[b], amountA, amountB, 0n, 0n, deployer, deadline]);
  }

  let snapshot = await node.snapshot();
  const w: UniswapWorld = {
    node,
    signer,
    hot,
    factory,
    router,
    weth,
    tokens,
    trader,
    async restore() {
      await node.setAutomine(true);
      await node.revert(snapshot);
      snapshot = await node.snapshot(); // a snapshot is used up by reverting to it
    },
    async amountsOut(amountIn, path) {
      return (await read(router, ROUTER.abi, "getAmountsOut", [amountIn, path.map((p) => tokens[p])])) as bigint[];
    },
    async trade(amountIn, path) {
      await call(router, ROUTER.abi, "swapExactTokensForTokens", [amountIn, 0n, path.map((p) => tokens[p]), trader, deadline], trader);
    },
    async balance(asset, who) {
      if (asset === "ETH") return node.balance(who);
      return node.tokenBalance(tokens[asset]!, who);
    },
    async pair(a, b) {
      return (await read(factory, FACTORY.abi, "getPair", [tokens[a], tokens[b]])) as string;
    },
  };
  return w;
}
