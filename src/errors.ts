import { err, type Result } from "neverthrow";

/**
 * The error catalogue of docs/decisions.md §2, as one table: every code has exactly one HTTP status
 * and one type. Nothing else in the code base decides a status.
 */
export const ERROR_CATALOGUE = {
  parameter_missing: { status: 400, type: "invalid_request_error" },
  parameter_invalid: { status: 400, type: "invalid_request_error" },
  amount_invalid: { status: 400, type: "invalid_request_error" },
  asset_unsupported: { status: 400, type: "invalid_request_error" },
  chain_unsupported: { status: 400, type: "invalid_request_error" },
  batch_invalid: { status: 400, type: "invalid_request_error" },
  batch_too_large: { status: 400, type: "invalid_request_error" },
  cursor_invalid: { status: 400, type: "invalid_request_error" },
  replay_window_exceeded: { status: 400, type: "invalid_request_error" },
  payout_not_cancelable: { status: 400, type: "invalid_request_error" },
  payout_not_approvable: { status: 400, type: "invalid_request_error" },
  limit_order_not_cancelable: { status: 400, type: "invalid_request_error" },
  quote_already_used: { status: 400, type: "invalid_request_error" },
  recipient_address_missing: { status: 400, type: "invalid_request_error" },
  api_key_missing: { status: 401, type: "authentication_error" },
  api_key_invalid: { status: 401, type: "authentication_error" },
  permission_denied: { status: 403, type: "permission_error" },
  resource_missing: { status: 404, type: "invalid_request_error" },
  idempotency_key_reused: { status: 400, type: "idempotency_error" },
  idempotency_key_in_use: { status: 409, type: "idempotency_error" },
  insufficient_funds: { status: 402, type: "request_failed" },
  quote_expired: { status: 402, type: "request_failed" },
  no_route: { status: 402, type: "request_failed" },
  recipient_blocked: { status: 402, type: "request_failed" },
  policy_limit_exceeded: { status: 402, type: "request_failed" },
  insufficient_liquidity: { status: 402, type: "request_failed" },
  request_timeout: { status: 408, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  content_type_unsupported: { status: 415, type: "invalid_request_error" },
  headers_too_large: { status: 431, type: "invalid_request_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
  storage_unavailable: { status: 503, type: "api_error" },
} as const satisfies Record<string, { status: number; type: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type ErrorType = (typeof ERROR_CATALOGUE)[ErrorCode]["type"];

/** One row of a batch validation failure (docs/decisions.md §2). */
export interface RowError {
  row: number;
  param: string;
  code: ErrorCode;
  message: string;
}

/**
 * An error the API reports. Inside the core it travels as the error side of a neverthrow
 * `Result`; at the edges (HTTP, host calls) it may be thrown. Its status and type always come
 * from the catalogue.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly type: ErrorType;
  readonly status: number;
  readonly param: string | undefined;
  readonly errors: RowError[] | undefined;
  /** Seconds a client should wait before retrying (429 `rate_limited`, 503 `storage_unavailable`). */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: { param?: string; errors?: RowError[]; retryAfter?: number } = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.type = ERROR_CATALOGUE[code].type;
    this.status = ERROR_CATALOGUE[code].status;
    this.param = options.param;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
  }

  /** The `error` member of the response body, without the request id. */
  toBody(requestId: string | null): ErrorBody {
    const error: ErrorBody["error"] = { type: this.type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    if (this.errors !== undefined) error.errors = this.errors;
    error.request_id = requestId;
    return { error };
  }
}

export interface ErrorBody {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    param?: string;
    errors?: RowError[];
    request_id?: string | null;
  };
}

/** Shorthand for the error side of a Result. */
export function fail<T = never>(code: ErrorCode, message: string, options?: { param?: string; errors?: RowError[]; retryAfter?: number }): Result<T, ApiError> {
  return err(new ApiError(code, message, options));
}

/**
 * An injected adapter threw. The core wraps every adapter call so the cause keeps the adapter's
 * name; at the HTTP edge it becomes a 500 `internal_error` (docs/decisions.md §2: never for bad input).
 */
export class AdapterError extends Error {
  readonly adapter: string;
  override readonly cause: unknown;
  constructor(adapter: string, operation: string, cause: unknown) {
    super(`adapter ${adapter} failed in ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "AdapterError";
    this.adapter = adapter;
    this.cause = cause;
  }
}

/** The error of class `type` that `e` is or wraps (through `cause`, as `AdapterError` wraps), or null. */
export function causeOf<E extends Error>(e: unknown, type: abstract new (...args: never[]) => E): E | null {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    if (cur instanceof type) return cur;
  }
  return null;
}

/**
 * A Result the code has already made sure of came back an error: a programmer mistake, so it
 * throws (rolling the transaction back) as an `Error` carrying the refusal as its `cause`.
 */
export class InvariantError extends Error {
  override readonly cause: unknown;
  constructor(message: string, cause: unknown) {
    super(`${message}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "InvariantError";
    this.cause = cause;
  }
}

/** The value of a Result that cannot be an error here (`what` says why); an `InvariantError` if it is. */
export function expectOk<T, E>(result: Result<T, E>, what: string): T {
  if (result.isErr()) throw new InvariantError(what, result.error);
  return result.value;
}
