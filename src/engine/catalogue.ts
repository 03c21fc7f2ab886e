import { CORE_EVENTS } from "../ledger/balance-events";
import type { AnyModule, EventDefinition, TagDefinition } from "./module";
import { scopesOf, type Scope } from "./scopes";

/** Id prefixes the engine itself mints, whatever its modules (docs/decisions.md §1). */
export const CORE_ID_PREFIXES: Readonly<Record<string, string>> = {
  acct: "account",
  evt: "event",
  req: "request",
  cur: "list cursor",
  le: "ledger entry",
  pst: "ledger posting",
  rsv: "reservation",
  job: "due work item",
  wrk: "worker",
};

/**
 * What the engine's modules declare, folded into one place: the event catalogue (with each
 * type's schema and sample), the scopes keys can carry, the id prefixes and the OpenAPI tags.
 * Built once at engine creation; two modules claiming one name, prefix, event type or route is a
 * programmer's mistake and throws there.
 */
export class EngineCatalogue {
  /** Every event type the engine emits, and nothing else, in the modules' order. */
  readonly eventTypes: readonly string[];
  /** `read` and `write` of every scope resource. */
  readonly scopes: readonly Scope[];
  readonly tags: readonly TagDefinition[];
  /** Id prefix → what it names. */
  readonly prefixes: ReadonlyMap<string, string>;
  private readonly events: ReadonlyMap<string, EventDefinition>;
  private readonly scopeSet: ReadonlySet<string>;

  constructor(modules: readonly AnyModule[]) {
    const names = new Set<string>();
    const prefixes = new Map(Object.entries(CORE_ID_PREFIXES));
    const events = new Map<string, EventDefinition>(CORE_EVENTS.map((e) => [e.type, e]));
    const scopeResources: string[] = [];
    const tags = new Map<string, TagDefinition>();
    const routes = new Set<string>();
    for (const module of modules) {
      claim(names, module.name, `module ${module.name}`);
      for (const [prefix, what] of Object.entries(module.ids ?? {})) {
        if (!/^[a-z]{2,8}$/.test(prefix)) throw new TypeError(`module ${module.name}: id prefix ${prefix} is not 2 to 8 lowercase letters`);
        if (prefixes.has(prefix)) throw new TypeError(`module ${module.name}: id prefix ${prefix} is taken (${prefixes.get(prefix)})`);
        prefixes.set(prefix, what);
      }
      for (const event of module.events ?? []) {
        if (events.has(event.type)) throw new TypeError(`module ${module.name}: event type ${event.type} is declared twice`);
        events.set(event.type, event);
      }
      for (const resource of module.scopes ?? []) {
        if (!/^[a-z][a-z_]*$/.test(resource)) throw new TypeError(`module ${module.name}: scope ${resource} is not snake_case`);
        if (scopeResources.includes(resource)) throw new TypeError(`module ${module.name}: scope ${resource} is declared twice`);
        scopeResources.push(resource);
      }
      for (const tag of module.tags ?? []) {
        if (tags.has(tag.name)) throw new TypeError(`module ${module.name}: tag ${tag.name} is declared twice`);
        tags.set(tag.name, tag);
      }
    }
    for (const module of modules) {
      for (const route of [...(module.routes ?? []), ...(module.downloads ?? []).map((d) => ({ ...d, method: "get" }))]) {
        claim(routes, `${route.method.toUpperCase()} ${route.path}`, `module ${module.name}: route`);
        if (!tags.has(route.tag)) throw new TypeError(`module ${module.name}: route ${route.path} has the undeclared tag ${route.tag}`);
      }
    }
    this.eventTypes = [...events.keys()];
    this.events = events;
    this.scopes = scopesOf(scopeResources);
    this.scopeSet = new Set(this.scopes);
    this.tags = [...tags.values()];
    this.prefixes = prefixes;
  }

  isEventType(type: unknown): type is string {
    return typeof type === "string" && this.events.has(type);
  }

  /** Whether an endpoint with these `enabled_events` receives events of `type` (`"*"`: every type not `namedOnly`). */
  subscribes(enabledEvents: readonly string[], type: string): boolean {
    return enabledEvents.includes(type) || (enabledEvents.includes("*") && this.events.get(type)?.namedOnly !== true);
  }

  /** The definition of an event type (its schema and sample); undefined for a type no module declares. */
  event(type: string): EventDefinition | undefined {
    return this.events.get(type);
  }

  isScope(scope: unknown): scope is Scope {
    return typeof scope === "string" && this.scopeSet.has(scope);
  }
}

function claim(taken: Set<string>, name: string, what: string): void {
  if (taken.has(name)) throw new TypeError(`${what} ${name} is declared twice`);
  taken.add(name);
}
