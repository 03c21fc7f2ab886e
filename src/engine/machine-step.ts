import { initialTransition, transition, type AnyStateMachine, type ContextFrom, type EventFromLogic, type InputFrom, type SnapshotFrom } from "xstate";

/**
 * How a machine's state is kept in storage: the state name and the context. The machines of
 * payrail are flat (one level of states), so the name is a string.
 */
export interface PersistedState<TContext> {
  value: string;
  context: TContext;
}

/** An action a transition named; services turn each into ledger postings, events or work. */
export interface MachineAction {
  type: string;
  params: unknown;
}

/** The outcome of feeding a machine one event. */
export interface MachineStep<TContext> extends PersistedState<TContext> {
  actions: MachineAction[];
  /** Whether the state name changed (a self-transition with actions is not a change). */
  moved: boolean;
  /** Whether the event changed anything: the state, the context's values, or actions to run. */
  handled: boolean;
  /** The state is a final one: it absorbs every later event. */
  done: boolean;
}

/**
 * The only way services run machines (DESIGN.md: machines are pure). No actor is created and no
 * action is executed: xstate's `initialTransition` / `transition` compute the next snapshot and
 * name the actions, and the caller persists the state and carries the actions out in the same
 * storage transaction.
 */
export function startMachine<M extends AnyStateMachine>(
  machine: M,
  // Optional always: xstate's InputFrom drops `undefined`, and payrail's context factories
  // tolerate a missing input by rule (DESIGN.md).
  input?: InputFrom<M>,
): MachineStep<ContextFrom<M>> {
  const [snapshot, actions] = (initialTransition as (m: M, i?: unknown) => [any, any[]])(machine, input);
  return toStep<ContextFrom<M>>(snapshot, actions, null, undefined);
}

export function stepMachine<M extends AnyStateMachine>(
  machine: M,
  state: PersistedState<ContextFrom<M>>,
  event: EventFromLogic<M>,
): MachineStep<ContextFrom<M>> {
  const snapshot = machine.resolveState({ value: state.value, context: state.context });
  const [next, actions] = transition(machine, snapshot as SnapshotFrom<M>, event) as [any, any[]];
  return toStep(next, actions, state.value, state.context);
}

function toStep<C>(snapshot: any, actions: any[], previous: string | null, previousContext: C | undefined): MachineStep<C> {
  if (typeof snapshot.value !== "string") throw new Error("payrail machines are flat: nested states are not supported");
  const named = actions
    .filter((a) => typeof a.type === "string" && !a.type.startsWith("xstate."))
    .map((a) => ({ type: a.type as string, params: a.params }));
  const moved = previous !== null && snapshot.value !== previous;
  return {
    value: snapshot.value,
    context: snapshot.context as C,
    actions: named,
    moved,
    handled: previous === null || moved || named.length > 0 || !sameJson(snapshot.context, previousContext),
    done: snapshot.status === "done",
  };
}

/** Contexts are JSON data; an assign that writes the same values is no change. */
function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
