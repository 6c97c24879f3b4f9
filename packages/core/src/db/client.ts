import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { VssError } from '../errors';
import { migratePglite, migratePostgres } from './migrate';
import * as schema from './schema';

/** What services are written against; both the PGlite and the postgres drizzle databases satisfy it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface OpenDatabaseOptions {
  /** PostgreSQL connection URL; without it the embedded PGlite is used. */
  url?: string;
  /** Where PGlite keeps its files (in `<dataDir>/pglite`); ignored with `url` or `inMemory`. */
  dataDir?: string;
  inMemory?: boolean;
  logger?: { warn(msg: string, fields?: object): void };
}

export interface OpenedDatabase {
  db: Database;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
  /** Never throws: false when the database cannot answer. */
  ping(): Promise<boolean>;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  if (options.url) return openPostgres(options.url, options.logger);
  if (options.inMemory) return openPglite();
  if (!options.dataDir) throw new Error('openDatabase needs a url, a dataDir or inMemory.');
  return openPglite(options.dataDir, options.logger);
}

function opened(db: Database, kind: OpenedDatabase['kind'], end: () => Promise<void>): OpenedDatabase {
  let closing: Promise<void> | undefined;
  return {
    db,
    kind,
    close: () => (closing ??= end()),
    async ping() {
      try {
        await db.execute(sql`select 1`);
        return true;
      } catch {
        return false;
      }
    },
  };
}

const unreachable = () => new VssError('database_unavailable', 'The database is unreachable.');

async function openPostgres(url: string, logger: OpenDatabaseOptions['logger']): Promise<OpenedDatabase> {
  const connect = (max: number) => postgres(url, { max, connect_timeout: 10, onnotice: () => {} });
  let pool: postgres.Sql;
  let migrator: postgres.Sql;
  try {
    // Construction parses the URL and may throw with the URL in the message.
    pool = connect(10);
    migrator = connect(1);
  } catch {
    throw new VssError('database_unavailable', 'The database URL is invalid.');
  }
  try {
    try {
      await migrator`select 1`;
    } catch (error) {
      // The driver's own message names the host at most, never the password, and tells the operator why.
      logger?.warn('Cannot connect to the database.', { code: errorCode(error), reason: errorMessage(error) });
      throw unreachable();
    }
    await migratePostgres(migrator);
  } catch (error) {
    await pool.end({ timeout: 0 });
    throw error;
  } finally {
    await migrator.end({ timeout: 5 });
  }
  return opened(drizzlePostgres({ client: pool, schema }), 'postgres', () => pool.end({ timeout: 5 }));
}

async function openPglite(dataDir?: string, logger?: OpenDatabaseOptions['logger']): Promise<OpenedDatabase> {
  if (!dataDir) {
    const client = await PGlite.create();
    await migratePglite(drizzlePglite({ client }));
    return opened(drizzlePglite({ client, schema }), 'pglite', () => client.close());
  }
  const directory = resolve(dataDir);
  const lock = acquireLock(directory, logger);
  try {
    const pgliteDir = join(directory, 'pglite');
    mkdirSync(pgliteDir, { recursive: true });
    const client = await PGlite.create(pgliteDir);
    try {
      await migratePglite(drizzlePglite({ client }));
    } catch (error) {
      await client.close();
      throw error;
    }
    return opened(drizzlePglite({ client, schema }), 'pglite', async () => {
      try {
        await client.close();
      } finally {
        lock.release();
      }
    });
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Lock files held by this process. Deciding "in use by us" from this set rather than from the pid in
 * the file matters in containers: after a crash the restarted server often gets the same pid again.
 */
const heldLocks = new Set<string>();

/** PGlite has no protection against two processes writing the same directory, so VSS adds its own. */
function acquireLock(directory: string, logger: OpenDatabaseOptions['logger']): { release(): void } {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'vss.lock');
  const inUse = (pid: number) =>
    new VssError(
      'database_unavailable',
      `The data directory ${directory} is in use by another VSS process (pid ${pid}).`,
    );
  if (heldLocks.has(file)) throw inUse(process.pid);

  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST' || attempt >= 2) throw error;
    }
    const pid = readLockPid(file);
    if (pid !== undefined && pid !== process.pid && isAlive(pid)) throw inUse(pid);
    logger?.warn('Taking over a stale lock of the data directory.', { directory, pid });
    removeFile(file);
  }

  heldLocks.add(file);
  // Synchronous because nothing asynchronous runs in an exit handler.
  const release = () => {
    process.removeListener('exit', release);
    if (!heldLocks.delete(file)) return;
    // Leave a lock alone that another process took over from us.
    if (readLockPid(file) === process.pid) removeFile(file);
  };
  process.on('exit', release);
  return { release };
}

function readLockPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return errorCode(error) === 'EPERM';
  }
}

function removeFile(file: string) {
  try {
    unlinkSync(file);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

const errorCode = (error: unknown) =>
  typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
