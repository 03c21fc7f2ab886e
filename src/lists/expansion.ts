import type { ModuleDeps } from "../engine/context";
import type { DocStore } from "../engine/doc-store";
import { presentLedgerEntries } from "../ledger/ledger-entries";
import type { ReadTx } from "../engine/context";

/** What presenting an expanded object takes: the asset registry. */
export type ExpansionDeps = Pick<ModuleDeps, "assets">;

/** What an expansion reads with: one read transaction of the account's, for every field of a response. */
export interface ExpandContext {
  readonly deps: ExpansionDeps;
  readonly tx: ReadTx;
  readonly accountId: string;
}

type Obj = Record<string, unknown>;

/** The fields of one kind of object that `expand[]` can replace (Stripe's expansion). */
export interface Expandable {
  readonly fields: Readonly<Record<string, ExpandField>>;
}

/** One expandable field. */
export interface ExpandField {
  /** What the objects put in can expand in turn (deeper paths); absent: nothing. Lazy, so kinds may refer to each other. */
  readonly to?: () => Expandable;
  /**
   * Replaces the field in every parent (ids become objects) with one read for all of them, and
   * answers the objects it put in. An id whose object no longer exists stays an id.
   */
  expand(ctx: ExpandContext, parents: Obj[]): Promise<Obj[]>;
}

/**
 * A field holding an id, an array of ids, or null: `fetch` reads the objects of the ids (of the
 * context's account) in one go, presented.
 */
export function idField(name: string, fetch: (ctx: ExpandContext, ids: string[]) => Promise<Map<string, object>>, to?: () => Expandable): ExpandField {
  return {
    ...(to ? { to } : {}),
    async expand(ctx, parents) {
      const ids = new Set<string>();
      for (const parent of parents) {
        const value = parent[name];
        if (typeof value === "string") ids.add(value);
        else if (Array.isArray(value)) for (const id of value) if (typeof id === "string") ids.add(id);
      }
      if (ids.size === 0) return [];
      const found = await fetch(ctx, [...ids]);
      const put: Obj[] = [];
      const swap = (id: unknown) => {
        const object = typeof id === "string" ? found.get(id) : undefined;
        if (!object) return id;
        // each place gets its own copy: a response may show one object twice
        const copy = structuredClone(object) as Obj;
        put.push(copy);
        return copy;
      };
      for (const parent of parents) {
        const value = parent[name];
        if (typeof value === "string") parent[name] = swap(value);
        else if (Array.isArray(value)) parent[name] = value.map(swap);
      }
      return put;
    },
  };
}

/** A field holding ids of documents of `store`, presented with `present`. */
export function docField<D extends { id: string }>(
  name: string,
  store: DocStore<D>,
  present: (doc: D, deps: ExpansionDeps) => object,
  to?: () => Expandable,
): ExpandField {
  return idField(
    name,
    async ({ deps, tx, accountId }, ids) => {
      const found = new Map<string, object>();
      for (const [id, doc] of await store.getMany(tx, accountId, ids)) found.set(id, present(doc, deps));
      return found;
    },
    to,
  );
}

/** A field holding ids of the account's ledger entries. */
export function ledgerEntriesField(name = "ledger_entries"): ExpandField {
  return idField(name, async ({ deps, tx, accountId }, ids) => {
    const entries = presentLedgerEntries(deps.assets, await tx.ledger.listEntries(accountId, { ids }));
    return new Map(entries.map((e) => [e.id, e]));
  });
}

/**
 * Expands `paths` (`recipient`, `settlements.payment_intent`) in `objects`, all of one kind,
 * in place: each field once for every object at its depth, so a page of a list costs one read
 * per field, not one per item. The paths were validated by the request's schema.
 */
export async function expandPaths(ctx: ExpandContext, kind: Expandable, objects: object[], paths: readonly string[]): Promise<void> {
  const byField = new Map<string, string[]>();
  for (const path of paths) {
    const [head, ...rest] = path.split(".");
    const tails = byField.get(head!) ?? [];
    if (rest.length) tails.push(rest.join("."));
    byField.set(head!, tails);
  }
  for (const [name, tails] of byField) {
    const field = kind.fields[name];
    if (!field) throw new Error(`${name} cannot be expanded here`);
    const children = await field.expand(ctx, objects as Obj[]);
    if (tails.length && children.length) {
      if (!field.to) throw new Error(`${name} has nothing to expand further`);
      await expandPaths(ctx, field.to(), children, tails);
    }
  }
}

/** The paths a list takes: each path of its items as `data.<path>`, and the bare path as an alias. */
export function listPaths<T extends string>(paths: readonly T[]): (T | `data.${T}`)[] {
  return [...paths.map((p) => `data.${p}` as const), ...paths];
}

/** A list's paths as paths of its items (`data.recipient` and `recipient` are one), sorted, without repeats. */
export function itemPaths(paths: readonly string[] | undefined): string[] {
  return [...new Set((paths ?? []).map((p) => (p.startsWith("data.") ? p.slice(5) : p)))].sort();
}

/** Runs `expandPaths` over fresh objects in one read transaction (nothing to do without paths). */
export async function expandObjects(
  deps: ExpansionDeps & Pick<ModuleDeps, "storage">,
  accountId: string,
  kind: Expandable,
  objects: object[],
  paths: readonly string[],
): Promise<void> {
  if (!paths.length || !objects.length) return;
  await deps.storage.read((tx) => expandPaths({ deps: { assets: deps.assets }, tx, accountId }, kind, objects, paths));
}
