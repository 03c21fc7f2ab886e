import { err, ok, type Result } from "neverthrow";
import type { ApiError } from "../errors";
import type { ModuleDeps, RequestContext } from "../engine/context";
import type { DocStore } from "../engine/doc-store";
import { applyMetadata, type Metadata } from "./metadata";

/**
 * Stripe's `POST /v1/<resources>/{id}` for a resource whose only client-changeable field is its
 * metadata (payouts, payment intents): in one command, the document is locked, the changes applied
 * (`applyMetadata`) and the document written back. Without changes it answers the object as it is.
 */
export function updateMetadataOf<D extends { id: string; metadata?: Metadata }, O>(
  deps: Pick<ModuleDeps, "storage">,
  ctx: RequestContext,
  store: DocStore<D>,
  id: string,
  changes: Metadata | undefined,
  present: (doc: D) => O,
  missing: (id: string) => Result<never, ApiError>,
): Promise<Result<O, ApiError>> {
  return deps.storage.command<O>(ctx, async (uow) => {
    const stored = await store.get(uow.tx, ctx.accountId, id, { lock: true });
    if (!stored) return missing(id);
    if (changes === undefined) return ok(present(stored.doc));
    const metadata = applyMetadata(stored.doc.metadata, changes);
    if (metadata.isErr()) return err(metadata.error);
    const { doc } = await store.update(uow.tx, stored, { ...stored.doc, metadata: metadata.value }, uow.now);
    return ok(present(doc));
  });
}
