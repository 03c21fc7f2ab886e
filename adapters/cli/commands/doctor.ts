import type { Command } from "commander";
import type { ConfigurationCheck } from "../../../src/ports/chain";
import { isHotWalletCheck } from "../../chains/configuration-checks";
import type { CliCommand } from "../program";

/** Words of a mnemonic that is never a key of anyone's: stands in for a refused one so the chains can still be checked. */
const STAND_IN_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/**
 * `payrail doctor` (docs/decisions.md §12): the live configuration (`PAYRAIL_CHAINS`, `PAYRAIL_VENUES`,
 * `PAYRAIL_SIGNER_MNEMONIC`) checked against the chains as `payrail serve` checks it when it
 * starts: the mnemonic's words and checksum, each node's chain id, each token's decimals and
 * symbol, each Solana mint, a price for gas in each payout asset, the venues' contracts. One
 * line per check; exit 1 when any fails (the host would refuse to start). Nothing is written:
 * the adapters are made on a memory storage, and nothing is signed or sent
 * (`checkLiveConfiguration`, what the host runs).
 */
export const doctorCommand: CliCommand = {
  register(program, ctx) {
    program
      .command("doctor")
      .description("check the live configuration (PAYRAIL_CHAINS, PAYRAIL_VENUES, PAYRAIL_SIGNER_MNEMONIC) against the chains, a line per check")
      .addHelpText(
        "after",
        `
Reads the same environment as payrail serve and checks what serve checks as it starts. Each line
is ok, warn (works, but fix it: a payout asset without a price for gas is refused) or FAIL (serve
refuses to start). Exit 1 when a check fails.`,
      )
      .action(async (_options: unknown, cmd: Command) => {
        const { io } = ctx;
        const env = io.env;
        const c = ctx.colors(cmd);
        const lines: ConfigurationCheck[] = [];
        const print = (check: ConfigurationCheck) => {
          lines.push(check);
          const label = check.outcome === "ok" ? c.green("ok  ") : check.outcome === "warning" ? c.yellow("warn") : c.red("FAIL");
          io.stdout.write(`${label}  ${check.message}\n`);
        };
        if (!env.PAYRAIL_CHAINS) {
          print({
            subject: "PAYRAIL_CHAINS",
            outcome: "ok",
            message: "PAYRAIL_CHAINS is not set: every chain is simulated (test mode only), nothing live to check",
          });
          if (env.PAYRAIL_VENUES)
            print({
              subject: "PAYRAIL_VENUES",
              outcome: "fail",
              message: "PAYRAIL_VENUES needs PAYRAIL_CHAINS: a live venue swaps with a live chain's hot wallet",
            });
          ctx.setExitCode(lines.some((l) => l.outcome === "fail") ? 1 : 0);
          return;
        }
        const [{ checkMnemonic }, { checkLiveConfiguration }, { SystemClock }] = await Promise.all([
          import("../../chains/mnemonic"),
          import("../live-chains"),
          import("../../clock"),
        ]);
        let mnemonic = env.PAYRAIL_SIGNER_MNEMONIC;
        if (!mnemonic) {
          print({
            subject: "PAYRAIL_SIGNER_MNEMONIC",
            outcome: "fail",
            message: "PAYRAIL_SIGNER_MNEMONIC is not set: live chains need the keys of the hot wallet",
          });
        } else {
          try {
            const words = checkMnemonic(mnemonic, "PAYRAIL_SIGNER_MNEMONIC").split(" ").length;
            print({ subject: "PAYRAIL_SIGNER_MNEMONIC", outcome: "ok", message: `PAYRAIL_SIGNER_MNEMONIC: ${words} words of the BIP-39 list, checksum valid` });
          } catch (e) {
            print({ subject: "PAYRAIL_SIGNER_MNEMONIC", outcome: "fail", message: (e as Error).message });
            mnemonic = undefined;
          }
        }
        try {
          const checks = await checkLiveConfiguration(
            // the chains are checked even when the mnemonic is refused: nothing here signs
            { chains: env.PAYRAIL_CHAINS, mnemonic: mnemonic ?? STAND_IN_MNEMONIC, ...(env.PAYRAIL_VENUES ? { venues: env.PAYRAIL_VENUES } : {}) },
            new SystemClock(),
          );
          // a refused mnemonic's stand-in wallet says nothing of the real one
          for (const check of checks) if (mnemonic || !isHotWalletCheck(check)) print(check);
        } catch (e) {
          print({ subject: "PAYRAIL_CHAINS", outcome: "fail", message: e instanceof Error ? e.message : String(e) });
        }
        ctx.setExitCode(lines.some((l) => l.outcome === "fail") ? 1 : 0);
      });
  },
};
