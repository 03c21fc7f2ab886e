import { defineEvent, type SampleContext } from "../../engine/module";
import { ApiKey } from "./api-key-objects";
import { presentApiKey } from "./api-keys-service";

/** A sample key, as the event shows it (never the key itself). */
function sampleKey({ ids, now }: SampleContext, change: { expiresAt?: number; revokedAt?: number } = {}) {
  return presentApiKey(
    {
      hash: "0".repeat(64),
      accountId: "acct_sample",
      id: ids.next("key"),
      name: "ci",
      livemode: false,
      scopes: ["payouts:write"],
      redacted: "sk_test_…x4Qz",
      created: now,
      expiresAt: change.expiresAt ?? null,
      revokedAt: change.revokedAt ?? null,
      lastUsedAt: null,
    },
    now,
  );
}

/** Changes to the account's credentials: each is also a record of the audit log. */
export const API_KEY_EVENTS = [
  defineEvent({
    type: "api_key.created",
    description: "An API key was created (the event never carries the key; the audit log says who created it)",
    object: ApiKey,
    namedOnly: true,
    sample: (ctx) => sampleKey(ctx),
  }),
  defineEvent({
    type: "api_key.rolled",
    description: "An API key was rolled: the object is the old key, now expiring; the audit record names its replacement",
    object: ApiKey,
    namedOnly: true,
    sample: (ctx) => sampleKey(ctx, { expiresAt: ctx.now + 3_600_000 }),
  }),
  defineEvent({
    type: "api_key.revoked",
    description: "An API key was revoked and authenticates no more",
    object: ApiKey,
    namedOnly: true,
    sample: (ctx) => sampleKey(ctx, { revokedAt: ctx.now }),
  }),
] as const;
