import pg from "pg";

/** Drops a bench's schema (and everything in it) on the server at `url`, on a session of its own. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
}
