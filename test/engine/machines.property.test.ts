import { fc } from "@fast-check/vitest";
import { transition, type AnyStateMachine, type EventFromLogic, type InputFrom } from "xstate";
import { describe, expect, it } from "vitest";
import { canStep, finalStatesOf, startMachine, statesOf, stepMachine, type MachineStep } from "../../src/engine/machine-step";
import { batchMachine } from "../../src/resources/payouts/batch-machine";
import { legMachine } from "../../src/resources/payouts/leg-machine";
import { payoutMachine } from "../../src/resources/payouts/payout-machine";
import { limitOrderMachine } from "../../src/resources/limit-orders/limit-order-machine";
import { paymentIntentMachine } from "../../src/resources/payment-intents/payment-intent-machine";
import { reportMachine } from "../../src/resources/reports/report-machine";
import { screeningMachine } from "../../src/resources/recipients/screening-machine";
import { swapMachine } from "../../src/resources/swaps/swap-machine";
import { webhookEndpointMachine } from "../../src/resources/webhook-endpoints/webhook-endpoint-machine";
import type { Finality } from "../../src/ports/chain";

/**
 * Every machine of the engine, driven by random event sequences from its start (random inputs
 * too): each step lands in one of the machine's own states, a final state absorbs every later
 * event (same state, same context, no action, not handled), a step the machine says it `can`
 * take is handled and one it cannot is not, and across the runs every state the machine declares
 * is reached (no dead state: every documented status is one a resource can really be in).
 */
interface Case<M extends AnyStateMachine> {
  machine: M;
  input: fc.Arbitrary<InputFrom<M> | undefined>;
  event: fc.Arbitrary<EventFromLogic<M>>;
}

const count = fc.integer({ min: 0, max: 4 });
const finality = fc.constantFrom<Finality>("pending", "included", "final", "reverted");

const CASES: Record<string, Case<AnyStateMachine>> = {
  payout: {
    machine: payoutMachine,
    input: fc.record({ requiresApproval: fc.boolean() }),
    event: fc.oneof(
      fc.constant({ type: "approve" as const }),
      fc.constant({ type: "cancel" as const }),
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), count, count)
        .filter(([total, confirmed, failed]) => confirmed + failed <= total)
        .map(([total, confirmed, failed]) => ({ type: "legs_changed" as const, total, confirmed, failed })),
    ),
  },
  leg: {
    machine: legMachine,
    input: fc.constant(undefined),
    event: fc.oneof(
      fc.nat().map((n) => ({ type: "broadcast" as const, txHash: `0x${n.toString(16)}` })),
      fc.constant({ type: "rejected" as const, reason: "refused" }),
      fc.constant({ type: "cancel" as const, reason: "payout_canceled" }),
      fc.record({
        type: fc.constant("status" as const),
        confirmations: count,
        finality,
        failure: fc.option(fc.constant("reverted"), { nil: null }),
      }),
    ),
  },
  batch: {
    machine: batchMachine,
    input: fc.constant(undefined),
    event: fc
      .tuple(fc.integer({ min: 1, max: 3 }), count)
      .filter(([total, final]) => final <= total)
      .map(([total, final]) => ({ type: "counted" as const, total, final })),
  },
  swap: {
    machine: swapMachine,
    input: fc.constant(undefined),
    event: fc.oneof(fc.constant({ type: "executed" as const }), fc.constant({ type: "rejected" as const, code: "venue_rejected" })),
  },
  limit_order: {
    machine: limitOrderMachine,
    input: fc.record({ partialFills: fc.boolean() }),
    event: fc.oneof(
      fc.boolean().map((complete) => ({ type: "fill" as const, complete })),
      fc.constantFrom("requested" as const, "expired" as const).map((reason) => ({ type: "cancel" as const, reason })),
    ),
  },
  payment_intent: {
    machine: paymentIntentMachine,
    input: fc.constant(undefined),
    event: fc.oneof(
      fc.constant({ type: "unsupported" as const }),
      fc.record({
        type: fc.constant("reconcile" as const),
        final: fc.bigInt({ min: 0n, max: 3n }),
        pending: fc.bigInt({ min: 0n, max: 3n }),
        minimum: fc.constant(2n),
        expired: fc.boolean(),
      }),
    ),
  },
  webhook_endpoint: {
    machine: webhookEndpointMachine,
    input: fc.constant(undefined),
    event: fc.constantFrom({ type: "enable" as const }, { type: "disable" as const }, { type: "fail" as const }, { type: "gone" as const }),
  },
  screening: {
    machine: screeningMachine,
    input: fc.record({ screening: fc.boolean() }),
    event: fc.oneof(
      fc.constant({ type: "changed" as const }),
      fc.constantFrom("cleared" as const, "flagged" as const).map((status) => ({ type: "verdict" as const, status })),
    ),
  },
  report: {
    machine: reportMachine,
    input: fc.constant(undefined),
    event: fc.oneof(
      fc.record({ type: fc.constant("built" as const), rowCount: fc.nat(100), size: fc.nat(10_000) }),
      fc.constant({ type: "failed" as const, reason: "gave up" }),
    ),
  },
};

describe.each(Object.entries(CASES))("the %s machine", (_, { machine, input, event }) => {
  it("stays within its states, absorbs in final states, and agrees with can() after any events", () => {
    const states = statesOf(machine);
    const finals = new Set(finalStatesOf(machine));
    fc.assert(
      fc.property(input, fc.array(event, { maxLength: 12 }), (given, events) => {
        let step: MachineStep<AnyStateMachine> = startMachine(machine, given);
        for (const e of events) {
          const before = step;
          const able = canStep(machine, before, e);
          step = stepMachine(machine, before, e);
          expect(states).toContain(step.value);
          if (finals.has(before.value)) {
            expect(step.value).toBe(before.value);
            expect(step.context).toEqual(before.context);
            expect(step.actions).toEqual([]);
            expect(step.handled).toBe(false);
            expect(able).toBe(false);
          }
          expect(step.done).toBe(finals.has(step.value));
          // a transition the machine can take is one that changes something, and none other does
          if (!able) expect(step.handled).toBe(false);
          if (step.moved) expect(able).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("steps as xstate's own transition(…) does (the step's shared scope changes nothing), whatever ran before", () => {
    fc.assert(
      fc.property(input, fc.array(event, { maxLength: 12 }), (given, events) => {
        let step: MachineStep<AnyStateMachine> = startMachine(machine, given);
        for (const e of events) {
          const [next, actions] = transition(machine, machine.resolveState({ value: step.value, context: step.context }), e);
          const own = actions.filter((a) => !a.type.startsWith("xstate.")).map((a) => ({ type: a.type, params: a.params }));
          step = stepMachine(machine, step, e);
          expect(step.value).toBe(next.value);
          expect(step.context).toEqual(next.context);
          expect(step.actions).toEqual(own);
          expect(step.done).toBe(next.status === "done");
        }
      }),
      { numRuns: 200 },
    );
  });

  it("reaches every state it declares (no dead status), exploring from every start with a fixed sample of events", () => {
    // breadth first over (state, context) from the samples' starts: deterministic, not by chance
    const events = fc.sample(event, { numRuns: 200, seed: 19 });
    const declared = statesOf(machine);
    const seen = new Set<string>();
    const reached = new Set<unknown>();
    const queue = fc.sample(input, { numRuns: 20, seed: 19 }).map((given) => startMachine(machine, given));
    // read by an index (shifting a queue of a million steps is quadratic); done once every state is reached
    for (let next = 0; next < queue.length && seen.size < 5_000 && reached.size < declared.length; next++) {
      const step = queue[next]!;
      const key = JSON.stringify([step.value, step.context], (_, v) => (typeof v === "bigint" ? v.toString() : v));
      if (seen.has(key)) continue;
      seen.add(key);
      reached.add(step.value);
      for (const e of events) queue.push(stepMachine(machine, step, e));
    }
    expect([...reached].sort()).toEqual([...declared].sort());
  });
});
