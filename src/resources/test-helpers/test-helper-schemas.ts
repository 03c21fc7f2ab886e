import { s, type Input } from "../../validation/schema";

/** Request schemas of the test helpers (docs/decisions.md §7). */

export const payPaymentIntentSchema = s.object({
  chain: s.chain(),
  amount: s.amount(),
  asset: s.asset().optional().describe("Default: the intent's asset (another asset is recorded, not credited)"),
});

export const fundSchema = s.object({
  asset: s.asset(),
  chain: s.chain(),
  amount: s.amount(),
});

export const advanceClockSchema = s.object({
  seconds: s.integer({ min: 0, max: 10 * 365 * 86_400 }),
});

export const advanceChainSchema = s.object({ blocks: s.integer({ min: 1, max: 100_000 }) });

export const reorgChainSchema = s.object({ depth: s.integer({ min: 1, max: 1_000 }) });

export const haltVenuesSchema = s.object({
  venue: s.string({ min: 1, max: 100 }).describe('A venue name as quotes show it (venues[].name), or "all"'),
  seconds: s.integer({ min: 0, max: 30 * 86_400 }).describe("How long the venue refuses to execute; 0 lifts the halt"),
});

export const triggerEventSchema = s.object({
  type: s.eventType().describe("The event type to emit with a sample object"),
  overrides: s
    .record(s.string({ min: 1, max: 200 }), s.string({ max: 10_000 }))
    .optional()
    .describe("Fields of the sample object to set, by dotted path (legs.0.chain); each value is text taking the type of the field it replaces"),
});

export type PayPaymentIntentInput = Input<typeof payPaymentIntentSchema>;
export type FundInput = Input<typeof fundSchema>;
export type AdvanceClockInput = Input<typeof advanceClockSchema>;
export type AdvanceChainInput = Input<typeof advanceChainSchema>;
export type ReorgChainInput = Input<typeof reorgChainSchema>;
export type HaltVenuesInput = Input<typeof haltVenuesSchema>;
export type TriggerEventInput = Input<typeof triggerEventSchema>;
