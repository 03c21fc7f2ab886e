import { createHash } from "node:crypto";
import type { DeletedWebhookEndpointSchema, WebhookEndpoint } from "./webhook-endpoint-objects";
import type { Out } from "../../api/response-schema";
import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { randomToken } from "../../ids";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { startMachine, stepMachine } from "../../engine/machine-step";
import { endpointState, endpointStatus, webhookEndpointMachine, type WebhookEndpointEvent, type WebhookEndpointState } from "./webhook-endpoint-machine";
import type { Json } from "../../ports/storage";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { type AuditAction, changesBetween, recordAudit } from "../audit-log/audit-doc";
import { isoTime, parseTimestamp } from "../../validation/timestamp";
import { systemContext, type ModuleDeps, type ReadTx, type RequestContext } from "../../engine/context";
import { DocStore, type Stored } from "../../engine/doc-store";
import {
  type CreateWebhookEndpointInput,
  type ListWebhookEndpointsParams,
  type UpdateWebhookEndpointInput,
  createEndpointSchema,
  listEndpointsSchema,
  updateEndpointSchema,
} from "./webhook-endpoint-schemas";

/** A signing secret; after a rotation the old one signs beside the new one until it expires. */
export interface EndpointSecret {
  secret: string;
  /** Epoch ms after which it no longer signs; null for the current secret. */
  expiresAt: number | null;
}

/** A webhook endpoint as stored: its machine's state, where it delivers, and its secrets (never shown again). */
export interface WebhookEndpointDoc {
  id: string;
  state: WebhookEndpointState;
  url: string;
  enabledEvents: string[];
  description: string | null;
  livemode: boolean;
  created: number;
  /** Newest first. */
  secrets: EndpointSecret[];
}

/** Shape 1 stored the API object with the secrets beside it. */
interface WebhookEndpointDocV1 {
  id: string;
  url: string;
  status: "enabled" | "disabled";
  disabled_reason: "manual" | "gone" | null;
  enabled_events: string[];
  description: string | null;
  livemode: boolean;
  created: string;
  secrets: { secret: string; expires_at: number | null }[];
}

/** The API object (DECISIONS.md §4); `secret` only in the answers to create and rotate_secret. */
export type WebhookEndpointObject = Out<typeof WebhookEndpoint>;

export type DeletedWebhookEndpoint = Out<typeof DeletedWebhookEndpointSchema>;

export const WEBHOOK_ENDPOINTS = new DocStore<WebhookEndpointDoc>({
  kind: "webhook_endpoint",
  version: 2,
  upgrade: (data) => {
    const v1 = data as unknown as WebhookEndpointDocV1;
    return {
      id: v1.id,
      state: endpointState(v1).value,
      url: v1.url,
      enabledEvents: v1.enabled_events,
      description: v1.description,
      livemode: v1.livemode,
      created: parseTimestamp(v1.created)!,
      secrets: v1.secrets.map((s) => ({ secret: s.secret, expiresAt: s.expires_at })),
    };
  },
  status: (doc) => endpointStatus(doc.state).status,
  reference: () => null,
});

/** The secrets that sign a delivery made at `now`: the current one and any not yet expired. */
export function signingSecrets(doc: WebhookEndpointDoc, now: number): string[] {
  return doc.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => s.secret);
}

/** DECISIONS.md §4: `whsec_` + 32 random bytes, base64url. */
function newSecret(deps: Pick<ModuleDeps, "random">): string {
  return `whsec_${randomToken(deps.random, 32)}`;
}

export function presentEndpoint(doc: WebhookEndpointDoc, secret?: string): WebhookEndpointObject {
  const object: WebhookEndpointObject = {
    id: doc.id,
    object: "webhook_endpoint",
    url: doc.url,
    ...endpointStatus(doc.state),
    enabled_events: doc.enabledEvents as WebhookEndpointObject["enabled_events"],
    description: doc.description,
    livemode: doc.livemode,
    created: isoTime(doc.created),
  };
  return secret === undefined ? object : { ...object, secret };
}

/**
 * The secret is in the first answer only: the idempotency record keeps the answer without it, so
 * a replay (`Idempotent-Replayed: true`) never shows it again; a client that lost the first
 * answer rotates the secret.
 */
const SECRET_SHOWN_ONCE = {
  stored: ({ secret: _secret, ...shown }: WebhookEndpointObject): WebhookEndpointObject => shown,
};

/**
 * Webhook endpoints (seed: webhook endpoint; DECISIONS.md §4): register (the secret is shown
 * once), read, list, update, delete, rotate the secret. Deliveries to them are the delivery
 * stages' (`delivery-handlers.ts`); their log and replay are `WebhookDeliveriesService`'s.
 */
export class WebhookEndpointsService {
  /** Changes this process made to endpoints, by id (see `revision`). */
  private readonly revisions = new Map<string, number>();

  constructor(private readonly deps: Pick<ModuleDeps, "config" | "cursors" | "delivery" | "ids" | "parse" | "random" | "storage">) {}

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
    return this.deps.storage.command(
      ctx,
      async (uow) => {
        const secret = newSecret(this.deps);
        const doc: WebhookEndpointDoc = {
          id: this.deps.ids.next("we"),
          state: startMachine(webhookEndpointMachine).value,
          url: url.value,
          enabledEvents: events.value,
          description: parsed.value.description ?? null,
          livemode: ctx.livemode,
          created: uow.now,
          secrets: [{ secret, expiresAt: null }],
        };
        await WEBHOOK_ENDPOINTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
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
        if (change.status !== undefined && change.status !== endpointStatus(doc.state).status) {
          const moved = transition(doc, change.status === "enabled" ? "enable" : "disable");
          if (!moved) {
            return fail("parameter_invalid", "This endpoint answered 410 Gone and is disabled for good; register a new one", {
              param: "status",
            });
          }
          doc = moved;
        }
        await WEBHOOK_ENDPOINTS.update(uow.tx, stored, doc, uow.now);
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

  /** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
  async rotateSecret(ctx: RequestContext, id: string): Promise<Result<WebhookEndpointObject, ApiError>> {
    return this.deps.storage
      .command(
        ctx,
        async (uow) => {
          const found = await this.find(uow.tx, ctx, id, true);
          if (found.isErr()) return err(found.error);
          const stored = found.value;
          const secret = newSecret(this.deps);
          const expires = uow.now + this.deps.config.secretRotationOverlapMs;
          const kept = stored.doc.secrets.map((s) => (s.expiresAt === null ? { ...s, expiresAt: expires } : s)).filter((s) => s.expiresAt! > uow.now);
          const doc: WebhookEndpointDoc = { ...stored.doc, secrets: [{ secret, expiresAt: null }, ...kept] };
          await WEBHOOK_ENDPOINTS.update(uow.tx, stored, doc, uow.now);
          await audit(uow, "webhook_endpoint.secret_rotated", stored.doc, doc);
          return ok(presentEndpoint(doc, secret));
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
    const ctx: RequestContext = { ...systemContext(accountId, livemode), actor: { type: "engine" } };
    await this.deps.storage.command(ctx, async (uow) => {
      const stored = await WEBHOOK_ENDPOINTS.get(uow.tx, accountId, id, { lock: true });
      const moved = stored && transition(stored.doc, "gone");
      if (!stored || !moved) return ok(undefined);
      await WEBHOOK_ENDPOINTS.update(uow.tx, stored, moved, uow.now);
      await audit(uow, "webhook_endpoint.disabled", stored.doc, moved);
      return ok(undefined);
    });
    this.changed(id);
  }

  async find(tx: Pick<ReadTx, "resources">, ctx: RequestContext, id: string, lock = false): Promise<Result<Stored<WebhookEndpointDoc>, ApiError>> {
    const stored = await WEBHOOK_ENDPOINTS.get(tx, ctx.accountId, id, { lock });
    return stored ? ok(stored) : fail("resource_missing", `No such webhook endpoint: ${id}`, { param: "id" });
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
function transition(doc: WebhookEndpointDoc, event: WebhookEndpointEvent["type"]): WebhookEndpointDoc | null {
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

/**
 * What the audit log shows of an endpoint. Never a secret: the current one is named by a short
 * fingerprint (the first 8 hex digits of its SHA-256), enough to tell a rotation happened.
 */
function audited(doc: WebhookEndpointDoc): Record<string, Json> {
  const current = doc.secrets.find((s) => s.expiresAt === null)?.secret;
  return {
    url: doc.url,
    enabled_events: doc.enabledEvents,
    description: doc.description,
    ...endpointStatus(doc.state),
    secret: current === undefined ? null : `sha256:${createHash("sha256").update(current).digest("hex").slice(0, 8)}`,
  };
}

/** Records a change of an endpoint (`before` null: created; `after` null: deleted) with its event. */
async function audit(uow: UnitOfWork, action: AuditAction, before: WebhookEndpointDoc | null, after: WebhookEndpointDoc | null): Promise<void> {
  const doc = (after ?? before)!;
  const changes = changesBetween(before ? audited(before) : {}, after ? audited(after) : {});
  await recordAudit(uow, action, { type: "webhook_endpoint", id: doc.id }, presentEndpoint(doc), changes);
}
