import { listOf, scope } from "../../api/common-objects";
import { o } from "../../api/response-schema";

export const ApiKey = o.named(
  "ApiKey",
  o.object(
    {
      id: o.id("key"),
      object: o.literal("api_key"),
      name: o.nullable(o.string({ description: "A label the owner chose" })),
      livemode: o.boolean(),
      scopes: o.array(scope(), { description: "What the key may do; empty: full access" }),
      last4: o.string({ description: "The key's last 4 characters: all that is shown of it after its creation", example: "x4Qz" }),
      status: o.enum(["active", "expired", "revoked"] as const),
      expires_at: o.nullable(o.time({ description: "When a rolled key stops working" })),
      revoked_at: o.nullable(o.time()),
      last_used: o.nullable(o.time({ description: "When the key last authenticated a request, to the minute; null if it never has" })),
      created: o.time(),
      secret: o.optional(
        o.string({
          pattern: "^sk_(test|live)_[A-Za-z0-9_-]{16,200}$",
          description: "The key itself: only in the answer to create and roll (never in a replay); stored as its SHA-256 only",
        }),
      ),
    },
    { description: "An API key of the account (docs/decisions.md §3)" },
  ),
);
export const ApiKeyList = listOf("ApiKey", ApiKey);
