/**
 * How long a client may take and how many connections it may hold (`createNodeServer`; the
 * `payrail serve` host reads them from `PAYRAIL_HEADERS_TIMEOUT_SECONDS`,
 * `PAYRAIL_REQUEST_TIMEOUT_SECONDS`, `PAYRAIL_KEEP_ALIVE_TIMEOUT_SECONDS`, `PAYRAIL_MAX_CONNECTIONS`).
 */
export interface ServerLimits {
  /** Time to send the request line and headers, from the connection's start or its previous answer (default 10 s). */
  headersTimeoutMs: number;
  /** Time to send a whole request, body included (default 60 s: a 32 MB batch at 1 MB/s). At least `headersTimeoutMs`. */
  requestTimeoutMs: number;
  /** How long an idle kept-alive connection stays open for its next request (default 5 s). */
  keepAliveTimeoutMs: number;
  /** Connections open at once; one more is closed as soon as it is accepted (default 1024). */
  maxConnections: number;
}

/** Suited to a payments API: requests are small and quick, so a slow client is a stuck or hostile one. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};
