import { createHash } from "node:crypto";
import type { DeletedWebhookEndpointSchema, WebhookEndpoint } from "./webhook-endpoint-objects";
import type { Out } from "../../api/response-schema";
import { DocStore } from "../../engine/doc-store";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { type Metadata, presentMetadata } from "../../metadata/metadata";
import type { Json } from "../../ports/storage";
import { isoTime, parseTimestamp } from "../../validation/timestamp";
import { type AuditAction, changesBetween, recordAudit } from "../audit-log/audit-doc";
import type { SignatureScheme } from "../../events/signature-schemes";
import { presentHeaders } from "./endpoint-headers";
import { endpointState, endpointStatus, type WebhookEndpointState } from "./webhook-endpoint-machine";

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
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  /** Deliveries per second at most; absent or null: no limit. */
  rateLimit?: number | null;
  created: number;
  /** The current one first, then rotated ones still in their overlap. */
  secrets: EndpointSecret[];
  /** How deliveries are signed (docs/decisions.md §11); absent on documents written before the choice existed: stripe. */
  signatureScheme?: SignatureScheme;
  /** Custom headers sent on every delivery, names lower-case (absent on older documents: none). */
  headers?: Record<string, string>;
  /**
   * When the first delivery failed since the last one that succeeded (null or absent: the last
   * attempt succeeded, or none was made since it was enabled); see `endpoint-health.ts`.
   */
  failingSince?: number | null;
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

/** The API object (docs/decisions.md §4); `secret` only in the answers to create and rotate_secret. */
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

/** How the endpoint's deliveries are signed. */
export function schemeOf(doc: WebhookEndpointDoc): SignatureScheme {
  return doc.signatureScheme ?? "stripe";
}

/** The secrets that sign a delivery made at `now`: the current one and any not yet expired. */
export function signingSecrets(doc: WebhookEndpointDoc, now: number): string[] {
  return doc.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => s.secret);
}

export function presentEndpoint(doc: WebhookEndpointDoc, secret?: string): WebhookEndpointObject {
  const object: WebhookEndpointObject = {
    id: doc.id,
    object: "webhook_endpoint",
    url: doc.url,
    ...endpointStatus(doc.state),
    enabled_events: doc.enabledEvents as WebhookEndpointObject["enabled_events"],
    signature_scheme: schemeOf(doc),
    description: doc.description,
    livemode: doc.livemode,
    metadata: presentMetadata(doc.metadata),
    headers: presentHeaders(doc.headers),
    rate_limit: doc.rateLimit ?? null,
    created: isoTime(doc.created),
  };
  return secret === undefined ? object : { ...object, secret };
}

/**
 * What the audit log shows of an endpoint. Never a secret: the current one is named by a short
 * fingerprint (the first 8 hex digits of its SHA-256), enough to tell a rotation happened, and
 * when the previous secrets stop signing (a rotation's chosen overlap).
 */
function audited(doc: WebhookEndpointDoc): Record<string, Json> {
  const current = doc.secrets.find((s) => s.expiresAt === null)?.secret;
  return {
    url: doc.url,
    enabled_events: doc.enabledEvents,
    signature_scheme: schemeOf(doc),
    description: doc.description,
    metadata: presentMetadata(doc.metadata),
    // names only: a value may be a credential
    headers: Object.keys(doc.headers ?? {}),
    rate_limit: doc.rateLimit ?? null,
    ...endpointStatus(doc.state),
    secret: current === undefined ? null : `sha256:${createHash("sha256").update(current).digest("hex").slice(0, 8)}`,
    previous_secrets_expire_at: doc.secrets.flatMap((s) => (s.expiresAt === null ? [] : [isoTime(s.expiresAt)])),
  };
}

/** Records a change of an endpoint (`before` null: created; `after` null: deleted) with its event. */
export async function audit(uow: UnitOfWork, action: AuditAction, before: WebhookEndpointDoc | null, after: WebhookEndpointDoc | null): Promise<void> {
  const doc = (after ?? before)!;
  const changes = changesBetween(before ? audited(before) : {}, after ? audited(after) : {});
  await recordAudit(uow, action, { type: "webhook_endpoint", id: doc.id }, presentEndpoint(doc), changes);
}
