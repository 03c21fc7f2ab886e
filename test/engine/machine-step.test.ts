import { assign, setup } from "xstate";
import { describe, expect, it } from "vitest";
import { memoizedSteps, startMachine, stepMachine } from "../../src/engine/machine-step";

// A small machine of the shape payrail's machines take: flat, named actions, a final state.
const door = setup({
  types: {
    context: {} as { opened: number },
    events: {} as { type: "open" } | { type: "close" } | { type: "lock" } | { type: "noop" },
    input: {} as { opened?: number } | undefined,
  },
  actions: {
    announce: (_, params: { what: string }) => params,
    count: assign({ opened: ({ context }) => context.opened + 1 }),
  },
}).createMachine({
  id: "door",
  initial: "closed",
  context: ({ input }) => ({ opened: input?.opened ?? 0 }),
  entry: [{ type: "announce", params: { what: "installed" } }],
  states: {
    closed: { on: { open: { target: "open", actions: ["count", { type: "announce", params: { what: "opened" } }] }, lock: "locked" } },
    open: { on: { close: "closed" } },
    locked: { type: "final", entry: [{ type: "announce", params: { what: "locked" } }] },
  },
});

describe("machine steps", () => {
  it("computes the initial state and its entry actions without running anything", () => {
    const s = startMachine(door);
    expect(s).toMatchObject({ value: "closed", context: { opened: 0 }, handled: true, done: false });
    expect(s.actions).toEqual([{ type: "announce", params: { what: "installed" } }]);
  });

  it("keeps a step by its state, context and event: the same step as computed afresh, frozen, with a context of its own", () => {
    const step = memoizedSteps(door, 2);
    const persisted = { value: "closed" as const, context: { opened: 4 } };
    const first = step(persisted, { type: "open" });
    expect(first).toEqual(stepMachine(door, persisted, { type: "open" }));
    expect(step({ value: "closed", context: { opened: 4 } }, { type: "open" })).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.context) && Object.isFrozen(first.actions[0])).toBe(true);
    expect(first.context).not.toBe(persisted.context);
    expect(step(persisted, { type: "noop" })).toEqual(stepMachine(door, persisted, { type: "noop" }));
    expect(step({ value: "closed", context: { opened: 5 } }, { type: "open" })).toMatchObject({ context: { opened: 6 } });
  });

  it("moves from a persisted state and names the actions of the transition", () => {
    const s = stepMachine(door, { value: "closed", context: { opened: 4 } }, { type: "open" });
    expect(s).toMatchObject({ value: "open", context: { opened: 5 }, moved: true, handled: true });
    expect(s.actions.map((a) => a.type)).toEqual(["announce"]);
  });

  it("reports an event the state does not handle", () => {
    const s = stepMachine(door, { value: "open", context: { opened: 1 } }, { type: "lock" });
    expect(s).toMatchObject({ value: "open", moved: false, handled: false, actions: [] });
  });

  it("lets a final state absorb every event", () => {
    const locked = stepMachine(door, { value: "closed", context: { opened: 0 } }, { type: "lock" });
    expect(locked).toMatchObject({ value: "locked", done: true });
    expect(locked.actions).toEqual([{ type: "announce", params: { what: "locked" } }]);
    for (const type of ["open", "close", "lock", "noop"] as const) {
      const after = stepMachine(door, locked, { type });
      expect(after).toMatchObject({ value: "locked", moved: false, handled: false, actions: [], done: true });
    }
  });
});
