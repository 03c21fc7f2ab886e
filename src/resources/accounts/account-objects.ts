import { o } from "../../api/response-schema";

const perAsset = (description: string) => o.record(o.decimal(), { description });

export const Account = o.named(
  "Account",
  o.object(
    {
      id: o.id("acct"),
      object: o.literal("account"),
      name: o.string({ example: "Demo" }),
      livemode: o.boolean(),
      api_version: o.optional(
        o.string({
          description:
            "The account's default API version: requests without `Payrail-Version` and its webhooks use it. " +
            "Answered from version 2026-11-27 on; absent on 2026-01-01",
          example: "2026-11-27",
        }),
      ),
      policy: o.object(
        {
          max_payout_amount: perAsset("Per asset, the largest payout (above it: 402 policy_limit_exceeded)"),
          approval_threshold: perAsset("Per asset, the amount above which a payout waits in created for approval"),
        },
        { description: "The account's payout policy (docs/decisions.md §3)" },
      ),
      created: o.time(),
    },
    { description: "The account an API key belongs to" },
  ),
);
