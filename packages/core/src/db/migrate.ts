import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migrateWithPglite } from 'drizzle-orm/pglite/migrator';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate as migrateWithPostgres } from 'drizzle-orm/postgres-js/migrator';
import type { Sql } from 'postgres';

// Any constant works as long as nothing else in the database uses it for pg_advisory_lock.
const MIGRATION_LOCK_KEY = 0x56_53_53_01;

let folder: string | undefined;

/**
 * The package's `drizzle` folder: `../../drizzle` from `src/db/migrate.ts`; in the tsup bundle this
 * code lands in `dist/` (the index or a shared chunk, `../drizzle`) or in `dist/testing/`.
 */
export function migrationsFolder(): string {
  if (folder) return folder;
  for (const candidate of ['../../drizzle', '../drizzle']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${path}/meta/_journal.json`)) return (folder = path);
  }
  throw new Error(`The migrations folder of @vss/core was not found near ${fileURLToPath(import.meta.url)}.`);
}

export async function migratePglite(db: PgliteDatabase<Record<string, unknown>>): Promise<void> {
  await migrateWithPglite(db, { migrationsFolder: migrationsFolder() });
}

/**
 * `client` must be a single-connection client (`max: 1`): the session advisory lock then covers every
 * statement of the migration, so servers starting together against one database take turns.
 */
export async function migratePostgres(client: Sql): Promise<void> {
  const db = drizzle({ client });
  await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
  try {
    await migrateWithPostgres(db, { migrationsFolder: migrationsFolder() });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
  }
}
