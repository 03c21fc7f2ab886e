import { defineEvent } from "../../engine/module";
import { Account } from "./account-objects";
import { presentAccount } from "./accounts-service";

/** A change of the account's payout policy: also a record of the audit log. */
export const ACCOUNT_EVENTS = [
  defineEvent({
    type: "account.policy_updated",
    description: "The account's payout policy changed (the audit record has its values before and after)",
    object: Account,
    namedOnly: true,
    sample: ({ ids, now }) =>
      presentAccount({
        id: ids.next("acct"),
        name: "Demo",
        livemode: false,
        created: now,
        settings: { policy: { max_payout_amount: { USDC: "10000" }, approval_threshold: { USDC: "1000" } } },
      }),
  }),
] as const;
