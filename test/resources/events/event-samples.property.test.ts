import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { DEFAULT_CATALOGUE, type EventType } from "../../../src/modules";
import { IdGenerator } from "../../../src/ids";
import { AssetRegistry } from "../../../src/money/assets";
import { sampleEvent } from "../../../src/resources/test-helpers/test-helpers-service";
import { testWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * `POST /v1/test_helpers/events/trigger` samples are consistent with their type: the object is in
 * the state the event announces, and its parts agree with that state the way the engine's own
 * objects do (a partially_settled payout has final and failed legs only, amounts add up, …).
 * The rules here are written from docs/decisions.md, not from the sample builder.
 */
const SCALE = 18;
const units = (d: string): bigint => {
  const [whole, frac = ""] = d.split(".");
  return BigInt(whole! + frac.padEnd(SCALE, "0"));
};
const sum = (values: string[]) => values.reduce((a, v) => a + units(v), 0n);

function problems(type: EventType, o: any): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) out.push(what);
  };
  check(o.sample === true, "carries sample: true");
  const [resource, ...rest] = type.split(".");
  const status = rest.join(".");
  switch (resource) {
    case "payment_intent": {
      check(o.object === "payment_intent" && o.status === status, "status is the event's");
      const received = units(o.amount_received);
      const pending = units(o.amount_pending);
      const amount = units(o.amount);
      const rules: Record<string, boolean> = {
        processing: received === 0n && pending > 0n && o.settlements.length > 0,
        succeeded: received >= amount && pending === 0n,
        partially_paid: received > 0n && received < amount && pending === 0n,
        expired: received === 0n && pending === 0n,
        reverted: received === 0n && pending === 0n && o.settlements.length > 0,
        unsupported_chain: received === 0n && pending === 0n && o.settlements.length > 0,
        // announced only after a reorganisation removed what the intent had counted
        requires_payment: received === 0n && pending === 0n && o.settlements.length > 0,
      };
      check(rules[status] === true, `amounts and settlements fit ${status}`);
      break;
    }
    case "payout": {
      if (status === "leg.broadcast") {
        check(
          o.object === "payout_leg" && o.status === "broadcast" && typeof o.tx_hash === "string" && o.payout?.startsWith("po_"),
          "a broadcast leg of a payout",
        );
        break;
      }
      if (status === "batch.completed") {
        const counts = Object.entries(o.counts as Record<string, number>);
        check(o.object === "payout_batch" && o.status === "completed", "a completed batch");
        check(
          counts.every(([s]) => ["settled", "partially_settled", "failed", "canceled"].includes(s)),
          "every leg terminal",
        );
        check(counts.reduce((a, [, n]) => a + n, 0) === o.leg_count, "counts add up to leg_count");
        break;
      }
      check(o.object === "payout", "a payout");
      check(o.legs.length > 0, "has legs");
      check(sum(o.legs.map((l: any) => l.amount)) === units(o.amount), "leg amounts sum to the amount");
      check(sum(o.legs.map((l: any) => l.fee)) === units(o.fee), "leg fees sum to the fee");
      const final = (l: any) => l.status === "confirmed" && l.finality === "final" && l.confirmations > 0 && typeof l.tx_hash === "string";
      const failed = (l: any) => l.status === "failed" && typeof l.failure_code === "string";
      const open = (l: any) => l.status === "pending" || l.status === "broadcast";
      const rules: Record<string, boolean> = {
        created: (o.status === "created" || o.status === "executing") && o.legs.every(open) && o.settled_at === null,
        settled: o.status === "settled" && o.legs.every(final) && o.settled_at !== null,
        partially_settled: o.status === "partially_settled" && o.legs.every((l: any) => final(l) || failed(l)) && o.legs.some(final) && o.legs.some(failed),
        failed: o.status === "failed" && o.legs.every(failed) && o.settled_at === null,
      };
      check(rules[status] === true, `legs fit ${status}`);
      break;
    }
    case "swap":
      check(o.object === "swap" && o.status === status, "status is the event's");
      check((o.settled !== null) === (status === "settled"), "settled is set exactly when settled");
      check((o.failure_code !== null) === (status === "failed"), "failure_code is set exactly when failed");
      break;
    case "limit_order": {
      check(o.object === "limit_order" && o.status === status, "status is the event's");
      const amount = units(o.from.amount);
      const filledFrom = units(o.filled.from_amount);
      const reserved = units(o.reserved_amount);
      check(sum(o.fills.map((f: any) => f.from_amount)) === filledFrom, "fills add up to filled.from_amount");
      check(sum(o.fills.map((f: any) => f.to_amount)) === units(o.filled.to_amount), "fills add up to filled.to_amount");
      check((o.cancellation_reason !== null) === (status === "canceled"), "a cancellation reason exactly when canceled");
      const rules: Record<string, boolean> = {
        working: filledFrom === 0n && reserved === amount,
        partially_filled: filledFrom > 0n && filledFrom < amount && reserved === amount - filledFrom,
        filled: filledFrom === amount && reserved === 0n,
        canceled: reserved === 0n && filledFrom < amount,
      };
      check(rules[status] === true, `amounts fit ${status}`);
      break;
    }
    case "balance":
      check(o.object === "balance" && typeof o.as_of === "string", "a balance with as_of");
      break;
    case "recipient":
      check(o.object === "recipient" && o.screening === true && ["cleared", "flagged"].includes(o.screening_status), "a screening verdict");
      break;
    case "report":
      check(o.object === "report" && o.status === status, "status is the event's");
      check((o.row_count !== null) === (status === "ready"), "row_count exactly when ready");
      break;
    case "api_key":
      check(o.object === "api_key" && !("secret" in o), "a key, never its secret");
      check((status === "revoked") === (o.status === "revoked"), "revoked exactly when the event says so");
      check(status !== "rolled" || o.expires_at !== null, "a rolled key expires");
      break;
    case "webhook_endpoint":
      check(o.object === "webhook_endpoint" && !("secret" in o), "an endpoint, never its secret");
      check(status !== "disabled" || o.status === "disabled", "disabled when the event says so");
      break;
    case "account":
      check(o.object === "account" && typeof o.policy === "object", "an account with its policy");
      break;
    case "reconciliation": {
      check(o.object === "reconciliation" && o.status === "drift", "a drift");
      const base = (v: string) => {
        const negative = v.startsWith("-");
        const [i, f = ""] = (negative ? v.slice(1) : v).split(".");
        return (negative ? -1n : 1n) * BigInt(i! + f.padEnd(18, "0"));
      };
      check(base(o.difference) === base(o.on_chain) - base(o.in_books), "difference = on_chain − in_books");
      check(base(o.difference) !== 0n || o.explanation.addresses.length > 0, "something differs");
      break;
    }
    default:
      out.push(`no rule for ${type}`);
  }
  return out;
}

describe("event samples", () => {
  it("are consistent with their type, for every triggerable type at any time", () => {
    const assets = AssetRegistry.withDefaults();
    fc.assert(
      fc.property(
        fc.constantFrom(...(DEFAULT_CATALOGUE.eventTypes as EventType[])),
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2100, 0, 1) }),
        (type, now) => {
          const clock = new ManualClock(now);
          const object = JSON.parse(JSON.stringify(sampleEvent({ catalogue: DEFAULT_CATALOGUE, ids: new IdGenerator(clock), assets }, type, now)));
          expect(problems(type, object), type).toEqual([]);
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: true },
    );
  });

  it("reach receivers the same way through the trigger route", async () => {
    const w = await testWorld(storageKinds()[0]!);
    try {
      for (const type of DEFAULT_CATALOGUE.eventTypes as EventType[]) {
        const res = await w.request("POST", "/v1/test_helpers/events/trigger", { body: { type } });
        const event = (await res.json()) as any;
        expect(res.status, type).toBe(200);
        expect(problems(type, event.data.object), type).toEqual([]);
      }
    } finally {
      await w.close();
    }
  });
});

afterAll(closeSharedStorage);
