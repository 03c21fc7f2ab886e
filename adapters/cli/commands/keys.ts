import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import type { Colors } from "picocolors/types";
import type { ApiKeyObject, ListOf } from "../api-client";
import { CliError } from "../io";
import { jsonLine, pad } from "../output";
import type { CliCommand } from "../program";

/** `--scope payouts:write`, repeatable. */
function collectScope(scope: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...scope
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

function seconds(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`--grace takes a whole number of seconds, got ${text}`, 2);
  return n;
}

function line(c: Colors, key: ApiKeyObject): string {
  const status = key.status === "active" ? c.green(key.status) : key.status === "revoked" ? c.red(key.status) : c.yellow(key.status);
  const ends = key.status === "active" && key.expires_at ? c.yellow(`  until ${key.expires_at}`) : "";
  return `${key.id}  ${c.dim("…")}${key.last4}  ${pad(status, 7)}  ${pad(key.scopes.length ? key.scopes.join(",") : "full access", 30)}  ${key.name ?? ""}${ends}\n`;
}

/** The new key, once: on standard output alone (so `payrail keys create | …` takes just the key). */
function shown(ctx: Parameters<CliCommand["register"]>[1], cmd: Command, key: ApiKeyObject, json: boolean | undefined, what: string): void {
  if (json) {
    ctx.io.stdout.write(jsonLine(key));
    return;
  }
  const c = ctx.colors(cmd);
  ctx.io.stderr.write(`${what} ${key.id} (${key.scopes.length ? key.scopes.join(",") : "full access"}); the key, shown this once:\n`);
  ctx.io.stdout.write(`${key.secret}\n`);
  ctx.io.stderr.write(c.dim("it is stored only as a hash: keep it now, it cannot be shown again\n"));
}

/**
 * `payrail keys create|list|roll|revoke`: the account's API keys over the HTTP API. Managing
 * keys takes a full-access key (a restricted one gets permission_denied).
 */
export const keysCommand: CliCommand = {
  register(program, ctx) {
    const keys = program.command("keys").description("the account's API keys: create, list, roll, revoke (needs a full-access key)");
    keys
      .command("create")
      .description("make a key; it is printed once and never again")
      .option("--name <name>", "a label for the key")
      .option("--scope <scope>", "what the key may do, e.g. payouts:write (repeatable; none: full access)", collectScope)
      .option("--json", "print the key object (with its secret) as JSON")
      .action(async (options: { name?: string; scope?: string[]; json?: boolean }, cmd: Command) => {
        const key = await ctx
          .client(cmd)
          .post<ApiKeyObject>(
            "/v1/api_keys",
            { ...(options.name !== undefined ? { name: options.name } : {}), ...(options.scope ? { scopes: options.scope } : {}) },
            { idempotencyKey: `cli-${randomUUID()}` },
          );
        shown(ctx, cmd, key, options.json, "created");
      });
    keys
      .command("list")
      .description("the account's keys, newest first (the last 4 characters of each)")
      .option("--json", "one key object per line, as JSON")
      .action(async (options: { json?: boolean }, cmd: Command) => {
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        let cursor: string | undefined;
        do {
          const page = await client.get<ListOf<ApiKeyObject>>("/v1/api_keys", { query: { limit: 200, starting_after: cursor } });
          for (const key of page.data) ctx.io.stdout.write(options.json ? jsonLine(key) : line(c, key));
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
      });
    keys
      .command("roll")
      .description("replace a key with a new one (printed once); the old one keeps working for --grace seconds")
      .argument("<key>", "the key's id (key_…)")
      .option("--grace <seconds>", "how long the old key keeps working (default 0: it stops now; at most 604800)", seconds)
      .option("--json", "print the new key object (with its secret) as JSON")
      .action(async (id: string, options: { grace?: number; json?: boolean }, cmd: Command) => {
        const key = await ctx
          .client(cmd)
          .post<ApiKeyObject>(`/v1/api_keys/${encodeURIComponent(id)}/roll`, options.grace !== undefined ? { grace_period: options.grace } : {}, {
            idempotencyKey: `cli-${randomUUID()}`,
          });
        shown(ctx, cmd, key, options.json, `rolled ${id} into`);
      });
    keys
      .command("revoke")
      .description("revoke a key: it stops working at once")
      .argument("<key>", "the key's id (key_…)")
      .option("--json", "print the revoked key object as JSON")
      .action(async (id: string, options: { json?: boolean }, cmd: Command) => {
        const key = await ctx.client(cmd).post<ApiKeyObject>(`/v1/api_keys/${encodeURIComponent(id)}/revoke`);
        ctx.io.stdout.write(options.json ? jsonLine(key) : line(ctx.colors(cmd), key));
      });
  },
};
