import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

export type DatabaseKind = 'pglite' | 'postgres';

/** Options for `openDatabase`, plus the cleanup that throws the database away. */
export interface TestDatabase {
  url?: string;
  dataDir?: string;
  inMemory?: boolean;
  cleanup(): Promise<void>;
}

/** PGlite always; PostgreSQL too when a server is given, for `describe.each`. */
export function databaseKinds(databaseUrl?: string): DatabaseKind[] {
  return databaseUrl ? ['pglite', 'postgres'] : ['pglite'];
}

/**
 * A fresh, empty database: for PGlite a temporary data directory (or memory with `inMemory`), for
 * PostgreSQL a new `vss_test_*` database on the server `databaseUrl` points to, dropped by cleanup.
 */
export async function createTestDatabase(
  kind: DatabaseKind,
  options: { databaseUrl?: string; inMemory?: boolean } = {},
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    if (options.inMemory) return { inMemory: true, cleanup: async () => {} };
    const dataDir = await mkdtemp(join(tmpdir(), 'vss-test-'));
    return { dataDir, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const { databaseUrl } = options;
  if (!databaseUrl) throw new Error('createTestDatabase("postgres") needs a databaseUrl.');
  const name = `vss_test_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(statement);
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  await admin(`create database "${name}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), cleanup: () => admin(`drop database if exists "${name}" with (force)`) };
}
