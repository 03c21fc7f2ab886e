import { describe, expect, it } from "vitest";
import { limitOrderMachine } from "../../src/resources/limit-orders/limit-order-machine";
import { startMachine, stepMachine } from "../../src/engine/machine-step";
import { swapMachine } from "../../src/resources/swaps/swap-machine";

const announced = (actions: { type: string; params: unknown }[]) =>
  actions.filter((a) => a.type === "announce").map((a) => (a.params as { type: string }).type);

describe("swap machine", () => {
  it("starts executing, asking for the venue call and swap.executing", () => {
    const s = startMachine(swapMachine);
    expect(s.value).toBe("executing");
    expect(s.actions.map((a) => a.type)).toEqual(["execute", "announce"]);
    expect(announced(s.actions)).toEqual(["swap.executing"]);
  });

  it("settles on execution and fails with a refund on refusal; both are final", () => {
    const settled = stepMachine(swapMachine, { value: "executing", context: {} }, { type: "executed" });
    expect(settled).toMatchObject({ value: "settled", done: true });
    expect(settled.actions.map((a) => a.type)).toEqual(["settle", "announce"]);
    const failed = stepMachine(swapMachine, { value: "executing", context: {} }, { type: "rejected", code: "venue_rejected" });
    expect(failed).toMatchObject({ value: "failed", done: true });
    expect(failed.actions).toEqual([
      { type: "refund", params: { code: "venue_rejected" } },
      { type: "announce", params: { type: "swap.failed" } },
    ]);
    for (const state of [settled, failed]) {
      expect(stepMachine(swapMachine, state, { type: "executed" })).toMatchObject({ handled: false, actions: [] });
    }
  });
});

describe("limit order machine", () => {
  const working = (partialFills: boolean) => ({ value: "working", context: { partialFills } });

  it("starts working, watching the venues", () => {
    const s = startMachine(limitOrderMachine, { partialFills: false });
    expect(s).toMatchObject({ value: "working", context: { partialFills: false } });
    expect(s.actions.map((a) => a.type)).toEqual(["watch", "announce"]);
  });

  it("moves through partial fills to filled, announcing each tranche", () => {
    const first = stepMachine(limitOrderMachine, working(true), { type: "fill", complete: false });
    expect(first.value).toBe("partially_filled");
    expect(announced(first.actions)).toEqual(["limit_order.partially_filled"]);
    const second = stepMachine(limitOrderMachine, first, { type: "fill", complete: false });
    expect(second).toMatchObject({ value: "partially_filled", moved: false, handled: true });
    expect(announced(second.actions)).toEqual(["limit_order.partially_filled"]);
    const last = stepMachine(limitOrderMachine, second, { type: "fill", complete: true });
    expect(last).toMatchObject({ value: "filled", done: true });
    expect(announced(last.actions)).toEqual(["limit_order.filled"]);
  });

  it("does not take a partial fill when all-or-nothing", () => {
    const s = stepMachine(limitOrderMachine, working(false), { type: "fill", complete: false });
    expect(s).toMatchObject({ value: "working", handled: false, actions: [] });
    expect(stepMachine(limitOrderMachine, working(false), { type: "fill", complete: true }).value).toBe("filled");
  });

  it("cancels from working or partially filled, releasing the reservation; filled and canceled absorb", () => {
    for (const value of ["working", "partially_filled"]) {
      const s = stepMachine(limitOrderMachine, { value, context: { partialFills: true } }, { type: "cancel", reason: "expired" });
      expect(s).toMatchObject({ value: "canceled", done: true });
      expect(s.actions.map((a) => a.type)).toEqual(["release", "announce"]);
      expect(announced(s.actions)).toEqual(["limit_order.canceled"]);
    }
    for (const value of ["filled", "canceled"]) {
      const s = stepMachine(limitOrderMachine, { value, context: { partialFills: true } }, { type: "cancel", reason: "requested" });
      expect(s).toMatchObject({ value, handled: false, actions: [] });
    }
  });
});
