import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import { EVENT_TYPES } from "../events/catalogue";
import { randomToken } from "../ids";
import type { ListEnvelope } from "../lists/list-page";
import { listParamsShape } from "../lists/list-params";
import { startMachine, stepMachine } from "../machines/machine-step";
import {
  endpointState,
  endpointStatus,
  webhookEndpointMachine,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from "../machines/webhook-endpoint-machine";
import type { DeliveryAdapter } from "../ports/delivery";
import type { StorageTx } from "../ports/storage";
import { s, type Infer } from "../validation/schema";
import { isoTime } from "../validation/timestamp";
import { runCommand } from "./command";
import type { EngineDeps, RequestContext } from "./context";
import { ResourceStore, type Stored } from "./resource-store";

/** A signing secret; after a rotation the old one signs beside the new one until it expires. */
export interface EndpointSecret {
  secret: string;
  /** Epoch ms after which it no longer signs; null for the current secret. */
  expires_at: number | null;
}

/** A webhook endpoint as stored: the API object plus its secrets, which are never shown again. */
export interface WebhookEndpointDoc {
  id: string;
  object: "webhook_endpoint";
  url: string;
  status: "enabled" | "disabled";
  disabled_reason: "manual" | "gone" | null;
  enabled_events: string[];
  description: string | null;
  livemode: boolean;
  created: string;
  /** Newest first. */
  secrets: EndpointSecret[];
}

/** The API object (DECISIONS.md §4); `secret` only in the answers to create and rotate_secret. */
export type WebhookEndpointObject = Omit<WebhookEndpointDoc, "secrets"> & { secret?: string };

export interface DeletedWebhookEndpoint {
  id: string;
  object: "webhook_endpoint";
  deleted: true;
}

export const WEBHOOK_ENDPOINTS = new ResourceStore<WebhookEndpointDoc>({
  kind: "webhook_endpoint",
  status: (doc) => doc.status,
  reference: () => null,
});

const EVENT_FILTERS = [...EVENT_TYPES, "*"] as const;
const urlField = s.string({ min: 1, max: 2048, format: "uri" }).describe("HTTPS address of the receiver");
const eventsField = s
  .array(s.enum(EVENT_FILTERS), { min: 1, max: EVENT_FILTERS.length })
  .describe('Event types to receive, or ["*"] for every type');
const descriptionField = s.string({ max: 1000 }).optional();

export const createEndpointSchema = s.object({
  url: urlField,
  enabled_events: eventsField,
  description: descriptionField,
});

export const updateEndpointSchema = s.object({
  url: urlField.optional(),
  enabled_events: eventsField.optional(),
  description: descriptionField,
  status: s.enum(["enabled", "disabled"] as const).optional().describe("disabled stops deliveries until enabled again"),
});

export const listEndpointsSchema = s.object({
  ...listParamsShape,
  status: s.enum(["enabled", "disabled"] as const).optional(),
});

export type CreateEndpointInput = Infer<typeof createEndpointSchema>;

/** Whether an endpoint with these `enabled_events` receives events of `type`. */
export function subscribes(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.includes("*") || enabledEvents.includes(type);
}

/** The secrets that sign a delivery made at `now`: the current one and any not yet expired. */
export function signingSecrets(doc: WebhookEndpointDoc, now: number): string[] {
  return doc.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => s.secret);
}

/** DECISIONS.md §4: `whsec_` + 32 random bytes, base64url. */
function newSecret(deps: EngineDeps): string {
  return `whsec_${randomToken(deps.random, 32)}`;
}

function present(doc: WebhookEndpointDoc, secret?: string): WebhookEndpointObject {
  const { secrets: _, ...object } = doc;
  return secret === undefined ? object : { ...object, secret };
}

/**
 * Webhook endpoints (seed: webhook endpoint; DECISIONS.md §4): register (the secret is shown
 * once), read, list, update, delete, rotate the secret. Deliveries to them are
 * `WebhookDeliveriesService`'s.
 */
export class WebhookEndpointsService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly delivery: DeliveryAdapter,
  ) {}

  async create(ctx: RequestContext, input: unknown): Promise<Result<WebhookEndpointObject, ApiError>> {
    const parsed = createEndpointSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const url = this.checkUrl(parsed.value.url);
    if (url.isErr()) return err(url.error);
    const events = normaliseEvents(parsed.value.enabled_events);
    if (events.isErr()) return err(events.error);
    return runCommand(this.deps, ctx, async (uow) => {
      const secret = newSecret(this.deps);
      const doc: WebhookEndpointDoc = {
        id: this.deps.ids.next("we"),
        object: "webhook_endpoint",
        url: url.value,
        ...endpointStatus(startMachine(webhookEndpointMachine).value as WebhookEndpointState),
        enabled_events: events.value,
        description: parsed.value.description ?? null,
        livemode: ctx.livemode,
        created: isoTime(uow.now),
        secrets: [{ secret, expires_at: null }],
      };
      await WEBHOOK_ENDPOINTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      return ok(present(doc, secret));
    });
  }

  async get(ctx: RequestContext, id: string): Promise<Result<WebhookEndpointObject, ApiError>> {
    const stored = await this.deps.storage.transaction((tx) => this.find(tx, ctx, id));
    return stored.map((s) => present(s.doc));
  }

  async list(ctx: RequestContext, input: unknown): Promise<Result<ListEnvelope<WebhookEndpointObject>, ApiError>> {
    const parsed = listEndpointsSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    return WEBHOOK_ENDPOINTS.list(this.deps, ctx, parsed.value, (doc) => present(doc));
  }

  /** Changes the URL, the events, the description, or enables and disables by hand. */
  async update(ctx: RequestContext, id: string, input: unknown): Promise<Result<WebhookEndpointObject, ApiError>> {
    const parsed = updateEndpointSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const change = parsed.value;
    const url = change.url === undefined ? ok(undefined) : this.checkUrl(change.url);
    if (url.isErr()) return err(url.error);
    const events = change.enabled_events === undefined ? ok(undefined) : normaliseEvents(change.enabled_events);
    if (events.isErr()) return err(events.error);
    return runCommand(this.deps, ctx, async (uow) => {
      const found = await this.find(uow.tx, ctx, id, true);
      if (found.isErr()) return err(found.error);
      const stored = found.value;
      let doc: WebhookEndpointDoc = { ...stored.doc };
      if (url.value !== undefined) doc.url = url.value;
      if (events.value !== undefined) doc.enabled_events = events.value;
      if (change.description !== undefined) doc.description = change.description;
      if (change.status !== undefined && change.status !== doc.status) {
        const moved = transition(doc, change.status === "enabled" ? "enable" : "disable");
        if (!moved) {
          return fail("parameter_invalid", "This endpoint answered 410 Gone and is disabled for good; register a new one", {
            param: "status",
          });
        }
        doc = moved;
      }
      await WEBHOOK_ENDPOINTS.update(uow.tx, stored, doc, uow.now);
      return ok(present(doc));
    });
  }

  /** Deletes the endpoint; deliveries still queued for it are dropped when they fall due. */
  async delete(ctx: RequestContext, id: string): Promise<Result<DeletedWebhookEndpoint, ApiError>> {
    return runCommand(this.deps, ctx, async (uow) => {
      const found = await this.find(uow.tx, ctx, id, true);
      if (found.isErr()) return err(found.error);
      await uow.tx.resources.delete(ctx.accountId, id);
      return ok({ id, object: "webhook_endpoint", deleted: true });
    });
  }

  /** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
  async rotateSecret(ctx: RequestContext, id: string): Promise<Result<WebhookEndpointObject, ApiError>> {
    return runCommand(this.deps, ctx, async (uow) => {
      const found = await this.find(uow.tx, ctx, id, true);
      if (found.isErr()) return err(found.error);
      const stored = found.value;
      const secret = newSecret(this.deps);
      const expires = uow.now + this.deps.config.secretRotationOverlapMs;
      const kept = stored.doc.secrets
        .map((s) => (s.expires_at === null ? { ...s, expires_at: expires } : s))
        .filter((s) => s.expires_at! > uow.now);
      const doc: WebhookEndpointDoc = { ...stored.doc, secrets: [{ secret, expires_at: null }, ...kept] };
      await WEBHOOK_ENDPOINTS.update(uow.tx, stored, doc, uow.now);
      return ok(present(doc, secret));
    });
  }

  /** Marks an endpoint gone after a 410 (in the transaction that records the attempt). */
  async markGone(tx: StorageTx, accountId: string, id: string, now: number): Promise<void> {
    const stored = await WEBHOOK_ENDPOINTS.get(tx, accountId, id, { lock: true });
    if (!stored) return;
    const moved = transition(stored.doc, "gone");
    if (moved) await WEBHOOK_ENDPOINTS.update(tx, stored, moved, now);
  }

  async find(
    tx: StorageTx,
    ctx: RequestContext,
    id: string,
    lock = false,
  ): Promise<Result<Stored<WebhookEndpointDoc>, ApiError>> {
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
    const refused = this.delivery.checkUrl(url);
    return refused === null ? ok(url.href) : fail("parameter_invalid", `url is refused: ${refused}`, { param: "url" });
  }
}

/** The document after `event`, or null when the machine refuses it (a gone endpoint stays gone). */
function transition(doc: WebhookEndpointDoc, event: WebhookEndpointEvent["type"]): WebhookEndpointDoc | null {
  const step = stepMachine(webhookEndpointMachine, endpointState(doc), { type: event });
  if (!step.moved) return null;
  return { ...doc, ...endpointStatus(step.value as WebhookEndpointState) };
}

/** `["*"]` stands alone; repeated types count once, in the order given. */
function normaliseEvents(events: string[]): Result<string[], ApiError> {
  if (events.includes("*") && events.length > 1) {
    return fail("parameter_invalid", 'enabled_events: "*" means every type and stands alone', { param: "enabled_events" });
  }
  return ok([...new Set(events)]);
}
