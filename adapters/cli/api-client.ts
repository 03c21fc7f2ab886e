import { CliError } from "./io";

/** An error answer of the API (docs/decisions.md §2), as the CLI reports it. */
export class ApiCallError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly param: string | undefined,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(`${message} (${code}${param ? `, param ${param}` : ""}${requestId ? `, ${requestId}` : ""})`);
    this.name = "ApiCallError";
  }
}

export interface CallOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ApiConnection {
  /** Base URL of the host, e.g. `http://127.0.0.1:4000`. */
  url: string;
  apiKey: string;
}

/**
 * The commands' client of the `/v1` API: JSON in and out, `Authorization: Bearer`, errors of
 * the catalogue turned into `ApiCallError` (message, code, param and request id), a host that
 * cannot be reached into a `CliError` saying which URL failed.
 */
export class PayrailClient {
  readonly baseUrl: string;

  constructor(private readonly connection: ApiConnection) {
    this.baseUrl = connection.url.replace(/\/+$/, "");
  }

  get<T>(path: string, options: Omit<CallOptions, "body"> = {}): Promise<T> {
    return this.call("GET", path, options);
  }

  post<T>(path: string, body?: unknown, options: Omit<CallOptions, "body"> = {}): Promise<T> {
    return this.call("POST", path, { ...options, ...(body !== undefined ? { body } : {}) });
  }

  delete<T>(path: string, options: Omit<CallOptions, "body"> = {}): Promise<T> {
    return this.call("DELETE", path, options);
  }

  /** One call; resolves with the parsed body and the host's `Date` (for clocks that disagree). */
  async call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    return (await this.exchange<T>(method, path, options)).body;
  }

  async exchange<T>(method: string, path: string, options: CallOptions = {}): Promise<{ body: T; date: number | null }> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${this.connection.apiKey}`, accept: "application/json" };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (e) {
      if (options.signal?.aborted) throw e;
      const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
      throw new CliError(`cannot reach ${this.baseUrl} (${cause}); is the host running? (--url or PAYRAIL_URL)`);
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      throw new CliError(`${method} ${url.pathname} answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
      const error = (body as { error?: { code?: string; message?: string; param?: string; request_id?: string } } | null)?.error;
      throw new ApiCallError(
        res.status,
        error?.code ?? `http_${res.status}`,
        error?.param,
        error?.message ?? `HTTP ${res.status}`,
        error?.request_id ?? res.headers.get("request-id") ?? undefined,
      );
    }
    const date = res.headers.get("date");
    return { body: body as T, date: date ? Date.parse(date) : null };
  }
}

/** A list envelope (docs/decisions.md §5), as the API answers it. */
export type { ListEnvelope as ListOf } from "../../src/lists/list-page";
export type { EventEnvelope } from "../../src/events/envelope";
export type { WebhookDeliveryObject } from "../../src/resources/webhook-endpoints/webhook-deliveries-service";
export type { ApiKeyObject } from "../../src/resources/api-keys/api-keys-service";
