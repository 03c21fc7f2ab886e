import type { CliCommand } from "../program";
import { apiCommand } from "./api";
import { completionCommand } from "./completion";
import { configCommand } from "./config";
import { deliveriesCommand } from "./deliveries";
import { doctorCommand } from "./doctor";
import { eventsCommand } from "./events";
import { keysCommand } from "./keys";
import { listenCommand } from "./listen";
import { logsCommand } from "./logs";
import { reportsCommand } from "./reports";
import { serveCommand } from "./serve";
import { testHelpersCommand } from "./test-helpers";
import { triggerCommand } from "./trigger";
import { webhookEndpointsCommand } from "./webhook-endpoints";

/**
 * Every command of `payrail`, in the order `--help` lists them. A new command is a file in this
 * folder exporting a `CliCommand`, and one line here.
 */
export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  doctorCommand,
  listenCommand,
  triggerCommand,
  eventsCommand,
  deliveriesCommand,
  webhookEndpointsCommand,
  logsCommand,
  reportsCommand,
  keysCommand,
  testHelpersCommand,
  apiCommand,
  configCommand,
  completionCommand,
];
