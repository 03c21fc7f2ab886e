/**
 * A value that survives `JSON.stringify` / `JSON.parse` unchanged (no bigint, undefined or
 * functions). Typed as `unknown` so core records need no index signatures; the core owns the
 * shapes and the adapters only store them.
 */
export type Json = unknown;
