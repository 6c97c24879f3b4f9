import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreContext } from '../context';
import { AccessTokenSigner, SecretBox } from '../crypto';
import { openDatabase, type OpenedDatabase } from '../db/client';
import { cameras, streams, treeElements } from '../db/schema';
import { silentLogger } from '../logger';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../testing/database';
import { sweepRetention } from './retention';
import { createSegmentStore, type SegmentStore } from './segment-store';
import { backoffDelay } from './supervisor';

const DAY_MS = 86_400_000;
const NOW = new Date('2026-11-21T12:00:00Z');

describe.each(databaseKinds(process.env.DATABASE_URL))('retention on %s', (kind) => {
  let database: TestDatabase;
  let opened: OpenedDatabase;
  let root: string;
  let store: SegmentStore;
  let ctx: CoreContext;

  beforeAll(async () => {
    database = await createTestDatabase(kind, { databaseUrl: process.env.DATABASE_URL, inMemory: true });
    opened = await openDatabase(database);
    root = await mkdtemp(join(tmpdir(), 'vss-retention-'));
    store = createSegmentStore(opened.db, root);
    ctx = {
      db: opened.db,
      secrets: new SecretBox(randomBytes(32)),
      accessTokens: new AccessTokenSigner('secret'),
      logger: silentLogger,
      now: () => NOW,
      cameraProfiles: {},
      intercomDrivers: {},
    };
  });

  afterAll(async () => {
    await opened?.close();
    await database?.cleanup();
    await rm(root, { recursive: true, force: true });
  });

  /** A stream with segments starting at the given times, each a real file committed through the store. */
  async function streamWithSegments(archive: { enabled: boolean; days: number | null }, starts: Date[]) {
    const [group] = await opened.db.insert(treeElements).values({ name: 'g' }).returning();
    const [camera] = await opened.db
      .insert(cameras)
      .values({ uuid: crypto.randomUUID(), name: 'c', mac: randomBytes(6).toString('hex'), groupType: 'private', treeElementId: group!.id })
      .returning();
    const [stream] = await opened.db
      .insert(streams)
      .values({
        uid: `s-${randomBytes(4).toString('hex')}`,
        cameraId: camera!.id,
        type: 'high',
        isArchiveEnabled: archive.enabled,
        archiveStorageDays: archive.days,
      })
      .returning();
    const runDir = await store.createRunDir(stream!.uid, 'run');
    for (const [index, start] of starts.entries()) {
      const file = join(runDir, `${index}.ts`);
      await writeFile(file, randomBytes(188));
      await store.commit(stream!, file, start, 2_000, { discontinuity: false });
    }
    const files = async () => (await readdir(join(root, stream!.uid))).filter((name) => name.endsWith('.ts')).sort();
    return { stream: stream!, files };
  }

  it('keeps an archived stream for its days and drops what is older, file and row', async () => {
    const old = new Date(NOW.getTime() - 3 * DAY_MS);
    const fresh = new Date(NOW.getTime() - DAY_MS / 2);
    const { stream, files } = await streamWithSegments({ enabled: true, days: 2 }, [old, fresh]);
    const removed = await sweepRetention(ctx, store, { liveSegments: 6, minFreeBytes: 0 });
    expect(removed.expired).toBe(1);
    expect(await files()).toEqual([`${fresh.getTime()}.ts`]);
    expect((await store.latest(stream.id, 10)).map((row) => row.startedAt.getTime())).toEqual([fresh.getTime()]);
  });

  it('keeps only the live window of a stream whose archive is off', async () => {
    const starts = Array.from({ length: 5 }, (_, index) => new Date(NOW.getTime() - (5 - index) * 2_000));
    const { files } = await streamWithSegments({ enabled: false, days: null }, starts);
    await sweepRetention(ctx, store, { liveSegments: 2, minFreeBytes: 0 });
    expect(await files()).toEqual(starts.slice(-2).map((start) => `${start.getTime()}.ts`));
  });

  it('frees segments under disk pressure until there is room, but never one being read', async () => {
    const starts = [3, 2, 1].map((hours) => new Date(NOW.getTime() - hours * 3_600_000));
    const { stream, files } = await streamWithSegments({ enabled: true, days: 30 }, starts);
    const [oldest] = await store.latest(stream.id, 3);
    const release = store.hold(oldest!.path);
    let shortChecks = 2;
    const diskFree = async () => (shortChecks-- > 0 ? 0 : Number.MAX_SAFE_INTEGER);
    const removed = await sweepRetention(ctx, store, { liveSegments: 6, minFreeBytes: 1 }, diskFree);
    release();
    expect(removed.pressure).toBeGreaterThanOrEqual(2);
    expect(await files()).toEqual([`${starts[0]!.getTime()}.ts`]);
  });

  it('reconciles rows without files and files without rows', async () => {
    const { stream, files } = await streamWithSegments({ enabled: true, days: 30 }, [
      new Date(NOW.getTime() - 4_000),
      new Date(NOW.getTime() - 2_000),
    ]);
    const [first, second] = await store.latest(stream.id, 2);
    await rm(store.absolute(first!.path));
    await writeFile(join(root, stream.uid, 'orphan.ts'), 'x');
    await mkdir(join(root, stream.uid, '.runs', 'crashed'), { recursive: true });
    await writeFile(join(root, stream.uid, '.runs', 'crashed', '000001.ts'), 'partial');
    const removed = await store.reconcile();
    expect(removed.rows).toBeGreaterThanOrEqual(1);
    expect(removed.files).toBeGreaterThanOrEqual(1);
    expect(await files()).toEqual([second!.path.split('/').pop()]);
    expect((await store.latest(stream.id, 10)).map((row) => row.id)).toEqual([second!.id]);
  });
});

describe('backoffDelay', () => {
  it('starts within the initial delay, doubles, and never passes the cap', () => {
    expect(backoffDelay(1, 1_000, 30_000, () => 1)).toBe(1_000);
    expect(backoffDelay(1, 1_000, 30_000, () => 0)).toBe(500);
    expect(backoffDelay(3, 1_000, 30_000, () => 1)).toBe(4_000);
    expect(backoffDelay(20, 1_000, 30_000, () => 1)).toBe(30_000);
  });
});
