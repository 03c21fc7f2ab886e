import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { CliError } from "../io";
import { dataObject, dataQuery, parseDataPair, type DataPair } from "../request-data";
import type { CliCommand } from "../program";

interface RequestOptions {
  data?: DataPair[];
  idempotencyKey?: string;
  compact?: boolean;
}

const EXAMPLES = {
  get: "get /v1/payouts -d limit=3",
  post: "post /v1/recipients -d name=Ada -d chain_addresses.base=0x…",
  delete: "delete /v1/recipients/rcp_…",
} as const;

const collectData = (text: string, previous: DataPair[] = []) => [...previous, parseDataPair(text, "-d")];

/** `/v1/payouts`, `v1/payouts` or `payouts` as the API path `/v1/payouts`. */
export function apiPath(path: string): string {
  if (/^[a-z]+:\/\//i.test(path)) throw new CliError(`give the path only (e.g. /v1/payouts), not a URL: --url names the host`, 2);
  const p = path.startsWith("/") ? path : `/${path}`;
  return p.startsWith("/v1/") || p === "/v1" ? p : `/v1${p}`;
}

/**
 * `payrail get|post|delete PATH [-d key=value …]`: any call of the API with the profile's host
 * and key, the answer printed as JSON. `-d` goes into the JSON body of a POST and the query
 * string of a GET or DELETE; a POST carries a fresh Idempotency-Key unless `-i` gives one.
 */
export const apiCommand: CliCommand = {
  register(program, ctx) {
    for (const method of ["get", "post", "delete"] as const) {
      program
        .command(method)
        .description(`${method.toUpperCase()} any API path, e.g. payrail ${EXAMPLES[method]}`)
        .argument("<path>", "the API path, e.g. /v1/payouts/po_… (the /v1 may be left out)")
        .option(
          "-d, --data <key=value>",
          `${method === "post" ? "a body field" : "a query parameter"}: key=value (text) or key:=json; dotted or [bracketed] keys nest (repeatable)`,
          collectData,
        )
        .option("-i, --idempotency-key <key>", "the Idempotency-Key (POST; default a fresh one)")
        .option("--compact", "print the answer on one line")
        .action(async (path: string, options: RequestOptions, cmd: Command) => {
          const client = ctx.client(cmd);
          const data = options.data ?? [];
          const target = apiPath(path);
          const body =
            method === "post"
              ? await client.post(target, dataObject(data), { idempotencyKey: options.idempotencyKey ?? randomUUID(), signal: ctx.io.signal })
              : await client.call(method.toUpperCase(), target + dataQuery(data), { signal: ctx.io.signal });
          ctx.io.stdout.write(`${options.compact ? JSON.stringify(body) : JSON.stringify(body, null, 2)}\n`);
        });
    }
  },
};
