import {
  createActor,
  initialTransition,
  type ActorScope,
  type AnyStateMachine,
  type ContextFrom,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
  type StateMachine,
} from "xstate";
import { BoundedMap } from "../collections/bounded-map";

/** The state names of a machine (payrail's machines are flat): the type of a resource's status. */
export type StateOf<M> = M extends StateMachine<any, any, any, any, any, any, any, infer V, any, any, any, any, any, any, any> ? V & string : never;

/**
 * The actions a machine's transitions name, as `setup()` declared them: `{ type, params }` with
 * each action's own params type, so a service carries them out with a `switch` on `type` and
 * no casts.
 */
export type ActionOf<M> = M extends StateMachine<any, any, any, any, infer A, any, any, any, any, any, any, any, any, any, any> ? A : never;

/**
 * How a machine's state is kept in storage: the state name and the context. The machines of
 * payrail are flat (one level of states), so the name is a string.
 */
export interface PersistedState<TContext, TState extends string = string> {
  value: TState;
  context: TContext;
}

/** The outcome of feeding a machine one event. */
export interface MachineStep<M extends AnyStateMachine> extends PersistedState<ContextFrom<M>, StateOf<M>> {
  /** The actions the transition named, in order (xstate's own, such as assign, left out). */
  actions: ActionOf<M>[];
  /** Whether the state name changed (a self-transition with actions is not a change). */
  moved: boolean;
  /** Whether the event changed anything: the state, the context's values, or actions to run. */
  handled: boolean;
  /** The state is a final one: it absorbs every later event. */
  done: boolean;
}

/**
 * Every state of a machine, in the order its definition lists them: the values of the
 * resource's `status` (the API's enum is this list, so the two cannot disagree).
 */
export function statesOf<M extends AnyStateMachine>(machine: M): readonly StateOf<M>[] {
  return Object.keys(machine.states) as StateOf<M>[];
}

/** The final states of a machine: they absorb every later event. */
export function finalStatesOf<M extends AnyStateMachine>(machine: M): readonly StateOf<M>[] {
  return statesOf(machine).filter((state) => machine.states[state]!.type === "final");
}

/**
 * The only way services start machines (docs/architecture.md: machines are pure). No actor is created and
 * no action is executed: xstate's `initialTransition` computes the first snapshot and names the
 * actions, and the caller persists the state and carries the actions out in the same storage
 * transaction.
 */
export function startMachine<M extends AnyStateMachine>(
  machine: M,
  // Optional always: xstate's InputFrom drops `undefined`, and payrail's context factories
  // tolerate a missing input by rule (docs/architecture.md).
  input?: InputFrom<M>,
): MachineStep<M> {
  const [snapshot, actions] = (initialTransition as (m: M, i?: unknown) => [any, any[]])(machine, input);
  return toStep<M>(snapshot, actions, null, undefined);
}

/** Feeds a machine in a persisted state one event (see `startMachine`). */
export function stepMachine<M extends AnyStateMachine>(machine: M, state: PersistedState<ContextFrom<M>>, event: EventFromLogic<M>): MachineStep<M> {
  const snapshot = machine.resolveState({ value: state.value, context: state.context });
  const scope = inertScope(machine);
  const actions: any[] = [];
  scope.actionExecutor = (action) => {
    actions.push(action);
  };
  try {
    return toStep<M>(machine.transition(snapshot as SnapshotFrom<M>, event, scope), actions, state.value, state.context);
  } finally {
    scope.actionExecutor = ignore;
  }
}

const ignore = () => undefined;
const scopes = new WeakMap<AnyStateMachine, ActorScope<any, any, any, any>>();

/**
 * What xstate's `transition(…)` builds on every call, built once per machine: a scope whose
 * actions are collected, not executed, around an actor that is never started. payrail's
 * machines spawn nothing and steps run synchronously, one at a time, so steps can share it
 * (a leg's `broadcast` step took 26 to 35 µs with an actor of its own, 10 to 17 µs so).
 */
function inertScope(machine: AnyStateMachine): ActorScope<any, any, any, any> {
  let scope = scopes.get(machine);
  if (!scope) {
    const self = createActor(machine);
    scope = {
      self,
      id: "",
      sessionId: "",
      system: self.system,
      logger: ignore,
      defer: ignore,
      emit: ignore,
      stopChild: ignore,
      actionExecutor: ignore,
    };
    scopes.set(machine, scope);
  }
  return scope;
}

/**
 * `stepMachine` for a machine whose steps repeat (a payout's: a context of one flag, events of a
 * few counts): each step is kept by its state, context and event as JSON (machines are pure, so
 * the same three step the same way) and handed out again, frozen, with a context of its own that
 * callers copy into their documents. Only for machines whose contexts and events are JSON.
 */
export function memoizedSteps<M extends AnyStateMachine>(
  machine: M,
  capacity = 256,
): (state: PersistedState<ContextFrom<M>>, event: EventFromLogic<M>) => MachineStep<M> {
  const steps = new BoundedMap<string, MachineStep<M>>(capacity);
  return (state, event) => {
    const key = JSON.stringify([state.value, state.context, event]);
    let step = steps.get(key);
    if (!step) {
      const made = stepMachine(machine, state, event);
      const actions = made.actions.map((a) => Object.freeze({ ...(a as object) }));
      step = Object.freeze({
        ...made,
        context: Object.freeze({ ...(made.context as object) }) as ContextFrom<M>,
        actions: Object.freeze(actions) as unknown as ActionOf<M>[],
      });
      steps.set(key, step);
    }
    return step;
  };
}

/**
 * Whether the machine in `state` takes `event` (a transition is enabled for it): what a service
 * asks before it takes a lock or writes, instead of testing status strings.
 */
export function canStep<M extends AnyStateMachine>(machine: M, state: PersistedState<ContextFrom<M>>, event: EventFromLogic<M>): boolean {
  return (machine.resolveState({ value: state.value, context: state.context }) as { can(e: unknown): boolean }).can(event);
}

function toStep<M extends AnyStateMachine>(snapshot: any, actions: any[], previous: string | null, previousContext: unknown): MachineStep<M> {
  if (typeof snapshot.value !== "string") throw new Error("payrail machines are flat: nested states are not supported");
  const named = actions
    .filter((a) => typeof a.type === "string" && !a.type.startsWith("xstate."))
    .map((a) => ({ type: a.type as string, params: a.params }) as ActionOf<M>);
  const moved = previous !== null && snapshot.value !== previous;
  return {
    value: snapshot.value as StateOf<M>,
    context: snapshot.context as ContextFrom<M>,
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
