/**
 * A queue of calls on one database session: each runs once every call made before it has ended,
 * failed or not, in the order they were made. A session serves one statement at a time (PGlite
 * parses one result at a time; `pg` 9 refuses a query while one runs), yet a caller may send the
 * next statement before the last one answered: a transaction's COMMIT and the next transaction's
 * first statement, reads of one step sent together.
 */
export function inTurns(): <T>(fn: () => Promise<T>) => Promise<T>;
