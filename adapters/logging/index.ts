/**
 * `payrail/adapters/logging`: structured JSON logs (pino, an optional peer dependency used only
 * here) that never carry API keys, webhook secrets, mnemonics or passwords, and an observer that
 * logs every request with its request id.
 */
export { createLogger, logObserver, redactSecrets, isLogLevel, REDACTED, type LoggerOptions, type Logger } from "./logger";
export { NO_OBSERVER, combineObservers } from "../../src/ports/public";
