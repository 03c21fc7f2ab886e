import { chainConformance } from "../../../../src/conformance";
import { solanaHarness } from "../../../support/solana/solana-harness";

/** The published chain suite, unchanged, on the Solana adapter against litesvm behind the JSON-RPC server. */
chainConformance({ name: "solana (litesvm behind JSON-RPC)", factory: solanaHarness });
