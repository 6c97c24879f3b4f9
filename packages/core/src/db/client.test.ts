import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { pgSchema, serial } from 'drizzle-orm/pg-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../testing/database';
import { openDatabase, type OpenedDatabase } from './client';
import { constraintName, isUniqueViolation } from './errors';
import { migrationsFolder } from './migrate';
import { treeElements } from './schema';

const databaseUrl = process.env.DATABASE_URL;
const journal = JSON.parse(readFileSync(join(migrationsFolder(), 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };

// Through the query builder because the two drivers shape the results of raw `execute` differently.
const appliedMigrations = pgSchema('drizzle').table('__drizzle_migrations', { id: serial('id') });

async function migrationCount(opened: OpenedDatabase) {
  const [row] = await opened.db.select({ count: count() }).from(appliedMigrations);
  return row?.count;
}

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe.each(databaseKinds(databaseUrl))('openDatabase on %s', (kind) => {
  let test: TestDatabase;
  const opened: OpenedDatabase[] = [];
  const open = async () => {
    const database = await openDatabase(test);
    opened.push(database);
    return database;
  };

  beforeEach(async () => {
    test = await createTestDatabase(kind, { databaseUrl });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.close()));
    await test.cleanup();
  });

  it('applies the migrations', async () => {
    const { db, kind: opened } = await open();
    expect(opened).toBe(kind);
    await db.insert(treeElements).values({ name: 'Root', key: 'root' });
    const rows = await db.select().from(treeElements);
    expect(rows).toMatchObject([{ id: 1, name: 'Root', key: 'root', parentId: null }]);
    expect(rows[0]?.createdAt).toBeInstanceOf(Date);
  });

  it('applies nothing when reopened and keeps the data', async () => {
    const first = await open();
    await first.db.insert(treeElements).values({ name: 'Root' });
    const applied = await migrationCount(first);
    await first.close();

    const second = await open();
    expect(await migrationCount(second)).toBe(applied);
    expect(await second.db.select().from(treeElements)).toHaveLength(1);
  });

  it('answers ping until closed', async () => {
    const database = await open();
    expect(await database.ping()).toBe(true);
    await database.close();
    expect(await database.ping()).toBe(false);
  });

  it('recognises a unique violation', async () => {
    const { db } = await open();
    await db.insert(treeElements).values({ name: 'A', key: 'same' });
    const duplicate = await rejection(db.insert(treeElements).values({ name: 'B', key: 'same' }));
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(constraintName(duplicate)).toBe('tree_elements_key_unique');

    const missingParent = await rejection(db.insert(treeElements).values({ name: 'C', parentId: 999 }));
    expect(isUniqueViolation(missingParent)).toBe(false);
  });
});

describe('the PGlite data directory lock', () => {
  let test: TestDatabase;
  beforeEach(async () => {
    test = await createTestDatabase('pglite');
  });
  afterEach(() => test.cleanup());

  const lockFile = () => join(test.dataDir!, 'vss.lock');

  it('refuses a second open in the same process and frees the directory on close', async () => {
    const listeners = process.listenerCount('exit');
    const first = await openDatabase(test);
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.pid));
    expect(process.listenerCount('exit')).toBe(listeners + 1);

    const error = await rejection(openDatabase(test));
    expect(error.code).toBe('database_unavailable');
    expect(error.message).toContain(test.dataDir);

    await first.close();
    expect(existsSync(lockFile())).toBe(false);
    expect(process.listenerCount('exit')).toBe(listeners);
    await (await openDatabase(test)).close();
  });

  it('refuses a directory locked by another live process', async () => {
    writeFileSync(lockFile(), String(process.ppid));
    const error = await rejection(openDatabase(test));
    expect(error.code).toBe('database_unavailable');
    expect(error.message).toBe(
      `The data directory ${test.dataDir} is in use by another VSS process (pid ${process.ppid}).`,
    );
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.ppid));
  });

  it.each([
    ['a dead process', '999999'],
    ['an earlier process that had our pid', String(process.pid)],
    ['nobody readable', ''],
  ])('takes over a lock left by %s', async (_, content) => {
    writeFileSync(lockFile(), content);
    const warnings: string[] = [];
    const database = await openDatabase({ ...test, logger: { warn: (msg) => warnings.push(msg) } });
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.pid));
    expect(warnings).toHaveLength(1);
    await database.close();
    expect(existsSync(lockFile())).toBe(false);
  });
});

describe('openDatabase on an unreachable PostgreSQL', () => {
  it('fails with database_unavailable without revealing the URL', async () => {
    const url = 'postgres://postgres:s3cret@127.0.0.1:1/none';
    const error = await rejection(openDatabase({ url }));
    expect(error.code).toBe('database_unavailable');
    expect(error.message).toBe('The database is unreachable.');
  });

  it('does not reveal an unparsable URL either', async () => {
    const error = await rejection(openDatabase({ url: 'postgres://user:s3cret@[bad/x' }));
    expect(error.code).toBe('database_unavailable');
    expect(error.message).not.toContain('s3cret');
  });
});

describe.runIf(databaseUrl)('openDatabase on PostgreSQL', () => {
  it('lets servers starting together migrate one at a time', async () => {
    const test = await createTestDatabase('postgres', { databaseUrl });
    try {
      const all = await Promise.all([1, 2, 3].map(() => openDatabase(test)));
      expect(await migrationCount(all[0]!)).toBe(journal.entries.length);
      await Promise.all(all.map((database) => database.close()));
    } finally {
      await test.cleanup();
    }
  });
});
