import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { startMachine, stepMachine } from "../../engine/machine-step";
import { endpointStatus, webhookEndpointMachine, type WebhookEndpointEvent } from "./webhook-endpoint-machine";

import { addEngineWideSubscriber } from "../../events/engine-wide";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { scopesAllow } from "../../engine/scopes";
import { systemContext, type ModuleDeps, type ReadTx, type RequestContext } from "../../engine/context";
import type { Stored } from "../../engine/doc-store";
import { applyMetadata, newMetadata } from "../../metadata/metadata";
import { applyHeaders } from "./endpoint-headers";
import {
  type DeletedWebhookEndpoint,
  type WebhookEndpointDoc,
  type WebhookEndpointObject,
  WEBHOOK_ENDPOINTS,
  audit,
  presentEndpoint,
  schemeOf,
} from "./webhook-endpoint-doc";
import { chosenSecret, rotatedSecrets, schemeChange } from "./endpoint-secrets";
import {
  type CreateWebhookEndpointInput,
  type ListWebhookEndpointsParams,
  type RotateSecretInput,
  type UpdateWebhookEndpointInput,
  createEndpointSchema,
  listEndpointsSchema,
  rotateSecretSchema,
  updateEndpointSchema,
} from "./webhook-endpoint-schemas";

/**
 * The secret is in the first answer only: the idempotency record keeps the answer without it, so
 * a replay (`Idempotent-Replayed: true`) never shows it again; a client that lost the first
 * answer rotates the secret.
 */
const SECRET_SHOWN_ONCE = {
  stored: ({ secret: _secret, ...shown }: WebhookEndpointObject): WebhookEndpointObject => shown,
};

/**
 * Webhook endpoints (seed: webhook endpoint; docs/decisions.md §4): register (the secret is shown
 * once), read, list, update, delete, rotate the secret. Deliveries to them are the delivery
 * stages' (`delivery-handlers.ts`); their log and replay are `WebhookDeliveriesService`'s.
 */
export class WebhookEndpointsService {
  /** Changes this process made to endpoints, by id (see `revision`). */
  private readonly revisions = new Map<string, number>();

  constructor(private readonly deps: Pick<ModuleDeps, "catalogue" | "config" | "cursors" | "delivery" | "ids" | "parse" | "random" | "storage">) {}

  /**
   * An endpoint naming an engine-wide event type makes its account one that receives it
   * (`src/events/engine-wide.ts`), when the key making the change may read what it carries (its
   * `readScope`): 403 `permission_denied` otherwise, and nothing changes.
   */
  private async subscribeEngineWide(uow: UnitOfWork, doc: WebhookEndpointDoc): Promise<Result<void, ApiError>> {
    const actor = uow.ctx.actor;
    for (const [i, type] of doc.enabledEvents.entries()) {
      const engineWide = this.deps.catalogue.event(type)?.engineWide;
      if (!engineWide) continue;
      if (actor?.type === "api_key") {
        const key = await uow.tx.accounts.getApiKey(uow.ctx.accountId, actor.apiKey);
        if (key && !scopesAllow(key.scopes, engineWide.readScope)) {
          return fail("permission_denied", `${type} carries what the scope ${engineWide.readScope} reads, which this key lacks`, {
            param: `enabled_events[${i}]`,
          });
        }
      }
      await addEngineWideSubscriber(uow.tx, type, uow.ctx.livemode, uow.ctx.accountId);
    }
    return ok(undefined);
  }

  /**
   * How often this process has changed the endpoint since it started (update, rotation, delete,
   * a 410 seen): a delivery item compares it before each attempt and stops sending when its
   * endpoint changed under it, handing its other events to an item that reads the endpoint
   * afresh. A change made by another process reaches the deliveries when their next item reads it.
   */
  revision(id: string): number {
    return this.revisions.get(id) ?? 0;
  }

  /** Counts a change of the endpoint (see `revision`). */
  changed(id: string): void {
    this.revisions.set(id, this.revision(id) + 1);
  }

  /** `result`, after counting the change of `id` when it succeeded. */
  private counted<T>(id: string, result: Result<T, ApiError>): Result<T, ApiError> {
    if (result.isOk()) this.changed(id);
    return result;
  }

  async create(ctx: RequestContext, input: CreateWebhookEndpointInput): Promise<Result<WebhookEndpointObject, ApiError>> {
    const parsed = createEndpointSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const url = this.checkUrl(parsed.value.url);
    if (url.isErr()) return err(url.error);
    const events = normaliseEvents(parsed.value.enabled_events);
    if (events.isErr()) return err(events.error);
    const scheme = parsed.value.signature_scheme ?? "stripe";
    const chosen = chosenSecret(scheme, parsed.value.secret, this.deps.random);
    if (chosen.isErr()) return err(chosen.error);
    const headers = applyHeaders({}, parsed.value.headers ?? {});
    if (headers.isErr()) return err(headers.error);
    return this.deps.storage.command(
      ctx,
      async (uow) => {
        const secret = chosen.value;
        const doc: WebhookEndpointDoc = {
          id: this.deps.ids.next("we"),
          state: startMachine(webhookEndpointMachine).value,
          url: url.value,
          enabledEvents: events.value,
          description: parsed.value.description ?? null,
          livemode: ctx.livemode,
          metadata: newMetadata(parsed.value.metadata),
          ...(parsed.value.rate_limit ? { rateLimit: parsed.value.rate_limit } : {}),
          created: uow.now,
          secrets: [{ secret, expiresAt: null }],
          signatureScheme: scheme,
          headers: headers.value,
        };
        await WEBHOOK_ENDPOINTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
        const subscribed = await this.subscribeEngineWide(uow, doc);
        if (subscribed.isErr()) return err(subscribed.error);
        await audit(uow, "webhook_endpoint.created", null, doc);
        return ok(presentEndpoint(doc, secret));
      },
      SECRET_SHOWN_ONCE,
    );
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<WebhookEndpointObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => this.find(tx, ctx, id));
    return stored.map((s) => presentEndpoint(s.doc));
  }

  list(ctx: RequestContext, params: ListWebhookEndpointsParams = {}): PagedList<WebhookEndpointObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListWebhookEndpointsParams): Promise<Result<ListEnvelope<WebhookEndpointObject>, ApiError>> {
    const parsed = listEndpointsSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return WEBHOOK_ENDPOINTS.list(this.deps, ctx, parsed.value, (doc) => presentEndpoint(doc));
  }

  /** Changes the URL, the events, the description, or enables and disables by hand. */
  async update(ctx: RequestContext, id: string, input: UpdateWebhookEndpointInput): Promise<Result<WebhookEndpointObject, ApiError>> {
    const parsed = updateEndpointSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const change = parsed.value;
    const url = change.url === undefined ? ok(undefined) : this.checkUrl(change.url);
    if (url.isErr()) return err(url.error);
    const events = change.enabled_events === undefined ? ok(undefined) : normaliseEvents(change.enabled_events);
    if (events.isErr()) return err(events.error);
    return this.deps.storage
      .command(ctx, async (uow) => {
        const found = await this.find(uow.tx, ctx, id, true);
        if (found.isErr()) return err(found.error);
        const stored = found.value;
        let doc: WebhookEndpointDoc = { ...stored.doc };
        if (url.value !== undefined) doc.url = url.value;
        if (events.value !== undefined) doc.enabledEvents = events.value;
        if (change.description !== undefined) doc.description = change.description;
        if (change.rate_limit !== undefined) doc.rateLimit = change.rate_limit;
        const metadata = change.metadata === undefined ? ok(doc.metadata) : applyMetadata(doc.metadata, change.metadata);
        if (metadata.isErr()) return err(metadata.error);
        if (metadata.value !== undefined) doc.metadata = metadata.value;
        if (change.signature_scheme !== undefined) {
          const switched = schemeChange(doc, change.signature_scheme, uow.now);
          if (switched.isErr()) return err(switched.error);
          doc.signatureScheme = change.signature_scheme;
        }
        if (change.headers !== undefined) {
          const headers = applyHeaders(doc.headers, change.headers);
          if (headers.isErr()) return err(headers.error);
          doc.headers = headers.value;
        }
        if (change.status !== undefined && change.status !== endpointStatus(doc.state).status) {
          const moved = transition(doc, change.status === "enabled" ? "enable" : "disable");
          if (!moved) {
            return fail("parameter_invalid", "This endpoint answered 410 Gone and is disabled for good; register a new one", {
              param: "status",
            });
          }
          // enabled again: its failures so far no longer count towards disabling it
          doc = change.status === "enabled" ? { ...moved, failingSince: null } : moved;
        }
        await WEBHOOK_ENDPOINTS.update(uow.tx, stored, doc, uow.now);
        if (events.value !== undefined) {
          const subscribed = await this.subscribeEngineWide(uow, doc);
          if (subscribed.isErr()) return err(subscribed.error);
        }
        const disabling = doc.state !== stored.doc.state && doc.state !== "enabled";
        await audit(uow, disabling ? "webhook_endpoint.disabled" : "webhook_endpoint.updated", stored.doc, doc);
        return ok(presentEndpoint(doc));
      })
      .then((result) => this.counted(id, result));
  }

  /** Deletes the endpoint; deliveries still queued for it are dropped when they fall due. */
  async del(ctx: RequestContext, id: string): Promise<Result<DeletedWebhookEndpoint, ApiError>> {
    return this.deps.storage
      .command<DeletedWebhookEndpoint>(ctx, async (uow) => {
        const found = await this.find(uow.tx, ctx, id, true);
        if (found.isErr()) return err(found.error);
        await uow.tx.resources.delete(ctx.accountId, id);
        await audit(uow, "webhook_endpoint.deleted", found.value.doc, null);
        return ok({ id, object: "webhook_endpoint", deleted: true });
      })
      .then((result) => this.counted(id, result));
  }

  /**
   * A new secret (the client's own, or one generated), shown once; the previous one keeps signing
   * beside it for `expire_previous_in` seconds (default 24 hours; 0: stops at once).
   */
  async rotateSecret(ctx: RequestContext, id: string, input: RotateSecretInput = {}): Promise<Result<WebhookEndpointObject, ApiError>> {
    const parsed = rotateSecretSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { secret: supplied, expire_previous_in: overlap } = parsed.value;
    const overlapMs = overlap === undefined ? this.deps.config.secretRotationOverlapMs : overlap * 1000;
    return this.deps.storage
      .command(
        ctx,
        async (uow) => {
          const found = await this.find(uow.tx, ctx, id, true);
          if (found.isErr()) return err(found.error);
          const stored = found.value;
          const secret = chosenSecret(schemeOf(stored.doc), supplied, this.deps.random);
          if (secret.isErr()) return err(secret.error);
          const secrets = rotatedSecrets(stored.doc, secret.value, uow.now, overlapMs);
          if (secrets.isErr()) return err(secrets.error);
          const doc: WebhookEndpointDoc = { ...stored.doc, secrets: secrets.value };
          await WEBHOOK_ENDPOINTS.update(uow.tx, stored, doc, uow.now);
          await audit(uow, "webhook_endpoint.secret_rotated", stored.doc, doc);
          return ok(presentEndpoint(doc, secret.value));
        },
        SECRET_SHOWN_ONCE,
      )
      .then((result) => this.counted(id, result));
  }

  /**
   * Disables an endpoint for good after a 410, as the engine's own change (audited, with a
   * `webhook_endpoint.disabled` event), once the attempt that saw the 410 is recorded. A crash in
   * between leaves it enabled: its next delivery meets the 410 again and disables it then.
   */
  async markGone(accountId: string, livemode: boolean, id: string): Promise<void> {
    await this.retire(accountId, livemode, id, (doc) => doc && transition(doc, "gone"));
    this.changed(id);
  }

  /**
   * The engine's own change to an endpoint: `decide` sees it as stored, locked (null when
   * deleted), and returns what to write, or null for nothing. A change of its state (the engine
   * only ever disables: `gone`, `failing`) is audited (`webhook_endpoint.disabled`); resolves to
   * whether there was one. The 410 rule (`markGone`) and the health rule (`EndpointHealth`) write
   * through it.
   */
  async retire(accountId: string, livemode: boolean, id: string, decide: (doc: WebhookEndpointDoc | null) => WebhookEndpointDoc | null): Promise<boolean> {
    const ctx: RequestContext = { ...systemContext(accountId, livemode), actor: { type: "engine" } };
    let disabled = false;
    await this.deps.storage.command(ctx, async (uow) => {
      const stored = await WEBHOOK_ENDPOINTS.get(uow.tx, accountId, id, { lock: true });
      const moved = decide(stored?.doc ?? null);
      if (!stored || !moved) return ok(undefined);
      await WEBHOOK_ENDPOINTS.update(uow.tx, stored, moved, uow.now);
      disabled = moved.state !== stored.doc.state;
      if (disabled) await audit(uow, "webhook_endpoint.disabled", stored.doc, moved);
      return ok(undefined);
    });
    return disabled;
  }

  async find(
    tx: Pick<ReadTx, "resources">,
    ctx: RequestContext,
    id: string,
    lock = false,
    param = "id",
  ): Promise<Result<Stored<WebhookEndpointDoc>, ApiError>> {
    const stored = await WEBHOOK_ENDPOINTS.get(tx, ctx.accountId, id, { lock });
    return stored ? ok(stored) : fail("resource_missing", `No such webhook endpoint: ${id}`, { param });
  }

  /** The endpoint, if it is enabled: what a replay, a recovery or a resend sends to (`param` names it in the errors). */
  async findEnabled(
    tx: Pick<ReadTx, "resources">,
    ctx: RequestContext,
    id: string,
    before: string,
    param = "id",
  ): Promise<Result<WebhookEndpointDoc, ApiError>> {
    const found = await this.find(tx, ctx, id, false, param);
    if (found.isErr()) return err(found.error);
    if (found.value.doc.state !== "enabled") return fail("parameter_invalid", `This endpoint is disabled; enable it before ${before}`, { param });
    return ok(found.value.doc);
  }

  private checkUrl(text: string): Result<string, ApiError> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return fail("parameter_invalid", "url must be an absolute URL such as https://example.com/hooks", { param: "url" });
    }
    const refused = this.deps.delivery.checkUrl(url);
    return refused === null ? ok(url.href) : fail("parameter_invalid", `url is refused: ${refused}`, { param: "url" });
  }
}

/** The document after `event`, or null when the machine refuses it (a gone endpoint stays gone). */
export function transition(doc: WebhookEndpointDoc, event: WebhookEndpointEvent["type"]): WebhookEndpointDoc | null {
  const step = stepMachine(webhookEndpointMachine, { value: doc.state, context: {} }, { type: event });
  if (!step.moved) return null;
  return { ...doc, state: step.value };
}

/** `["*"]` stands alone; repeated types count once, in the order given. */
function normaliseEvents(events: string[]): Result<string[], ApiError> {
  if (events.includes("*") && events.length > 1) {
    return fail("parameter_invalid", 'enabled_events: "*" means every type and stands alone', { param: "enabled_events" });
  }
  return ok([...new Set(events)]);
}
