import { err, ok, type Result } from "neverthrow";
import { type ApiError, expectOk, fail } from "../../errors";
import type { AssetDefinition } from "../../money/assets";
import { parseAmount } from "../../money/amount";
import { s, type Input, type ParseContext } from "../../validation/schema";

/**
 * An account's payout policy (docs/decisions.md §3): per asset, the largest payout allowed
 * (`policy_limit_exceeded` above it) and the amount above which a payout waits in `created` for
 * `POST /v1/payouts/{id}/approve`. Kept in the account's settings; set by the host.
 */
export const policySchema = s.object({
  max_payout_amount: s.record(s.string({ min: 1, max: 12 }), s.amount()).optional(),
  approval_threshold: s.record(s.string({ min: 1, max: 12 }), s.amount()).optional(),
});

export type PolicyInput = Input<typeof policySchema>;

export interface AccountPolicy {
  max_payout_amount: Record<string, string>;
  approval_threshold: Record<string, string>;
}

export const NO_POLICY: AccountPolicy = { max_payout_amount: {}, approval_threshold: {} };

/** Checks a policy: known assets, amounts within each asset's precision. */
export function parsePolicy(parse: ParseContext, input: unknown): Result<AccountPolicy, ApiError> {
  const { assets } = parse;
  const parsed = policySchema.parse(input, "", parse);
  if (parsed.isErr()) return err(parsed.error);
  const policy: AccountPolicy = { max_payout_amount: {}, approval_threshold: {} };
  for (const field of ["max_payout_amount", "approval_threshold"] as const) {
    for (const [code, amount] of Object.entries(parsed.value[field] ?? {})) {
      const asset = assets.asset(code, `${field}.${code}`);
      if (asset.isErr()) return err(asset.error);
      const units = parseAmount(amount, asset.value, `${field}.${code}`, { allowZero: true });
      if (units.isErr()) return err(units.error);
      policy[field][code] = amount;
    }
  }
  return ok(policy);
}

/** The policy in an account's settings (none set: no limits). */
export function policyOf(settings: unknown): AccountPolicy {
  const policy = (settings as { policy?: AccountPolicy } | null)?.policy;
  return policy ?? NO_POLICY;
}

/** What the policy says of a payout of `units`: refused, waiting for approval, or straight through. */
export function checkPolicy(policy: AccountPolicy, asset: AssetDefinition, units: bigint, param = "amount"): Result<{ requiresApproval: boolean }, ApiError> {
  const max = policy.max_payout_amount[asset.code];
  if (max !== undefined && units > expectOk(parseAmount(max, asset, param, { allowZero: true }), "a stored policy amount parses")) {
    return fail("policy_limit_exceeded", `${asset.code} payouts are limited to ${max} on this account`, { param });
  }
  const threshold = policy.approval_threshold[asset.code];
  const requiresApproval =
    threshold !== undefined && units > expectOk(parseAmount(threshold, asset, param, { allowZero: true }), "a stored policy amount parses");
  return ok({ requiresApproval });
}
