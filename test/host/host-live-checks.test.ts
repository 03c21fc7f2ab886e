import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPairSigner } from "@solana/kit";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli";
import { TEST_MNEMONIC } from "../support/evm/evm-node";
import { evmWorld, type EvmWorld } from "../support/evm/evm-harness";
import { hostProcess, serveProvider, startChild, stopChild } from "../support/evm/processes";
import { solanaWorld, type SolanaWorld } from "../support/solana/solana-harness";

const LIVE_KEY = "sk_live_livecheckstest0123456789";

/**
 * The live configuration checked against the chains themselves as the host starts (issue 37):
 * `payrail serve` and `payrail doctor` against the project's hardhat network (served over HTTP)
 * and its Solana test node (litesvm behind JSON-RPC). A token whose `decimals()` is not its
 * asset's, a mint of other decimals, a node of another chain, a mistyped mnemonic: each refuses
 * to start with one line naming the setting and both values, no stack trace; a chain and asset
 * without a price for gas starts with a warning, and a live payout's refusal names the setting.
 */
describe("the host checks its live configuration against the chains", () => {
  let evm: EvmWorld;
  let evmRpc: Awaited<ReturnType<typeof serveProvider>>;
  let sol: SolanaWorld;
  let eighteen: string;
  let nineMint: string;
  let dataDir: string;

  const chains = (base: Record<string, unknown> | null, solana: Record<string, unknown> | null) =>
    JSON.stringify({
      ...(base ? { base: { rpc_url: evmRpc.url, tokens: { USDC: evm.token }, fee_rates: { USDC: "3000" }, chain_id: 31337, ...base } } : {}),
      ...(solana ? { solana: { rpc_url: sol.rpc.url, tokens: { USDC: sol.mint }, fee_rates: { USDC: "150" }, ...solana } } : {}),
    });
  const serve = (env: Record<string, string>) =>
    runCli(["serve"], { PORT: "0", LOG_LEVEL: "silent", PAYRAIL_DATA_DIR: dataDir, PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC, ...env });

  beforeAll(async () => {
    evm = await evmWorld();
    await evm.restore();
    evmRpc = await serveProvider(evm.node.provider);
    eighteen = getAddress(await evm.node.deployToken("USDC", 18));
    sol = await solanaWorld();
    nineMint = (await generateKeyPairSigner()).address;
    sol.node.setMint(nineMint, 9, nineMint);
    dataDir = await mkdtemp(join(tmpdir(), "payrail-live-checks-"));
  }, 120_000);

  afterAll(async () => {
    await evmRpc?.close();
    await sol?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("doctor prints a line per check of a sound configuration and exits 0", async () => {
    const run = runCli(["doctor"], { PAYRAIL_CHAINS: chains({}, {}), PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC, NO_COLOR: "1" });
    expect(await run.done).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toEqual([
      "ok    PAYRAIL_SIGNER_MNEMONIC: 12 words of the BIP-39 list, checksum valid",
      "ok    base: chain id 31337",
      "ok    base.tokens.USDC: decimals() is 6",
      "ok    base.tokens.USDC: symbol() is USDC",
      expect.stringMatching(/^ok {4}base: hot wallet 0x[0-9a-fA-F]{40}$/),
      "ok    base: gas is priced in ETH",
      "ok    base: gas is priced in USDC",
      expect.stringMatching(/^ok {4}solana: hot wallet [1-9A-HJ-NP-Za-km-z]{32,44}$/),
      "ok    solana.tokens.USDC: the mint has 6 decimals",
      "ok    solana: gas is priced in SOL",
      "ok    solana: gas is priced in USDC",
    ]);
  });

  it("doctor fails what serve would refuse, a line each, and exits 1", async () => {
    const run = runCli(["doctor"], {
      PAYRAIL_CHAINS: chains({ tokens: { USDC: eighteen }, chain_id: undefined }, { tokens: { USDC: nineMint } }),
      PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC.replace(/about$/, "abandon"),
      NO_COLOR: "1",
    });
    expect(await run.done).toBe(1);
    expect(run.stdout.split("\n").filter((l) => l.startsWith("FAIL"))).toEqual([
      "FAIL  PAYRAIL_SIGNER_MNEMONIC fails its BIP-39 checksum: a word is mistyped as another word of the list, or the words are out of order",
      "FAIL  base: the node serves chain id 31337, base is 8453 (set chain_id to use another network)",
      `FAIL  base.tokens.USDC: decimals() of ${eighteen} is 18, USDC has 6`,
      `FAIL  solana.tokens.USDC: the mint ${nineMint} has 9 decimals, USDC has 6`,
    ]);
  });

  const refusals: [string, () => Record<string, string>, string][] = [
    ["a token whose decimals() is not its asset's", () => ({ PAYRAIL_CHAINS: chains({ tokens: { USDC: eighteen } }, null) }), ""],
    ["a Solana mint of other decimals", () => ({ PAYRAIL_CHAINS: chains(null, { tokens: { USDC: nineMint } }) }), ""],
    ["a node of another chain", () => ({ PAYRAIL_CHAINS: chains({ chain_id: 8453 }, null) }), "base: the node serves chain id 31337, chain_id is 8453"],
    [
      "a bad-checksum mnemonic (EVM)",
      () => ({ PAYRAIL_CHAINS: chains({}, null), PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC.replace(/about$/, "abandon") }),
      "PAYRAIL_SIGNER_MNEMONIC fails its BIP-39 checksum: a word is mistyped as another word of the list, or the words are out of order",
    ],
    [
      "a misspelt mnemonic (Solana alone)",
      () => ({ PAYRAIL_CHAINS: chains(null, {}), PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC.replace(/^abandon/, "abandn") }),
      "PAYRAIL_SIGNER_MNEMONIC: word 1 is not in the BIP-39 English list",
    ],
    [
      "a bad-checksum mnemonic (Solana alone)",
      () => ({ PAYRAIL_CHAINS: chains(null, {}), PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC.replace(/about$/, "abandon") }),
      "PAYRAIL_SIGNER_MNEMONIC fails its BIP-39 checksum",
    ],
  ];
  for (const [what, env, message] of refusals) {
    it(`serve refuses ${what} with one line and exit 2`, async () => {
      const run = serve(env());
      expect(await run.done).toBe(2);
      const expected =
        message ||
        (what.includes("Solana")
          ? `solana.tokens.USDC: the mint ${nineMint} has 9 decimals, USDC has 6`
          : `base.tokens.USDC: decimals() of ${eighteen} is 18, USDC has 6`);
      expect(run.stderr).toContain(`payrail: ${expected}`);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stdout).not.toContain("listening");
    });
  }

  it("the binary prints the refusal as one line, without a stack trace", async () => {
    const { child, matched } = startChild(
      process.execPath,
      ["--import", "tsx", "adapters/cli/main.ts", "serve"],
      { PORT: "0", PAYRAIL_DATA_DIR: dataDir, PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC, PAYRAIL_CHAINS: chains({ tokens: { USDC: eighteen } }, null) },
      /never/,
    );
    const exit = await matched.then(
      () => null,
      (e: Error) => e.message,
    );
    await stopChild(child, "SIGKILL");
    expect(child.exitCode).toBe(2);
    expect(exit).toContain(`payrail: base.tokens.USDC: decimals() of ${eighteen} is 18, USDC has 6`);
    expect(exit).not.toMatch(/\n\s+at /);
  });

  it("starts without a price for gas in an asset, warns naming the setting, and a live payout's refusal names it too", async () => {
    const host = await hostProcess({
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC,
      PAYRAIL_LIVE_API_KEY: LIVE_KEY,
      PAYRAIL_CHAINS: chains({ fee_rates: {} }, null),
    });
    try {
      const setting = "set fee_rates.USDC of base in PAYRAIL_CHAINS, or a live venue trading ETH/USDC (PAYRAIL_VENUES)";
      const warning = host
        .output()
        .split("\n")
        .filter((l) => l.includes('"level":"warn"') && l.includes("fee_rates.USDC"));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toContain(`no price for base's gas (ETH) in USDC: ${setting}; live USDC payouts on base are refused until then`);
      const call = async (path: string, body: unknown, key?: string) => {
        const res = await fetch(`${host.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${LIVE_KEY}`, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as { id?: string; error?: { code: string; message: string } } };
      };
      const rcp = await call("/v1/recipients", { name: "R", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
      const payout = await call("/v1/payouts", { amount: "1", asset: "USDC", recipient: rcp.body.id }, "gasless-1");
      expect(payout.status).toBe(402);
      expect(payout.body.error).toMatchObject({ code: "no_route" });
      expect(payout.body.error!.message).toBe(
        `No chain can send USDC to recipient ${rcp.body.id} in this mode: base: no price for base's gas (ETH) in USDC: ${setting}`,
      );
    } finally {
      await stopChild(host.child, "SIGTERM");
    }
  });
});
