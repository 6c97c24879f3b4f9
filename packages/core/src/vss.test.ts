import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKinds, type TestDatabase } from './testing';
import { createVss, type Vss } from './vss';

describe.each(databaseKinds(process.env.DATABASE_URL))('createVss on %s', (kind) => {
  let database: TestDatabase;
  let vss: Vss;
  let clock = new Date('2026-12-01T00:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase(kind, { databaseUrl: process.env.DATABASE_URL });
    vss = await createVss({
      database: database,
      encryptionKey: randomBytes(32),
      now: () => clock,
    });
  });

  afterAll(async () => {
    await vss?.close();
    await database?.cleanup();
  });

  async function camera(mac: string, extra: Record<string, unknown> = {}) {
    const group = await vss.tree.createTreeElement({ name: `group ${mac}` });
    return vss.cameras.createV2({ name: 'Entrance', mac, group_id: group.id, ...extra });
  }

  it('keeps only the hash of an API token and honours expiry', async () => {
    const token = await vss.tokens.issueApiToken({ client: 'billing', duration: 60 });
    await expect(vss.tokens.authenticate(token)).resolves.toMatchObject({ client: 'billing' });
    clock = new Date(clock.getTime() + 61_000);
    await expect(vss.tokens.authenticate(token)).rejects.toMatchObject({ code: 'unauthenticated' });
    const listed = await vss.tokens.listApiTokens();
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it('applies the stored archive settings of a type when its stream is created', async () => {
    const created = await camera('00:11:22:33:44:01', {
      streams: [
        { type: 'high', is_archive_enabled: true, archive_storage_days: 30 },
        { type: 'low', is_archive_enabled: false },
      ],
    });
    expect(created).toMatchObject({ is_archive_recording: true, archive_storage_days: 30, status: '' });
    const high = await vss.streams.create(created.id, { type: 'high', url: 'rtsp://admin:secret@10.0.0.5/live' });
    expect(high).toMatchObject({ is_archive_enabled: true, archive_storage_days: 30, status: 'empty' });
    expect(high.url).toBe('rtsp://admin:***@10.0.0.5/live');
  });

  it('builds both streams from the camera profile when the device gets an address', async () => {
    const created = await camera('00:11:22:33:44:02', {
      service: 'hikvision',
      onvif_credentials: { login: 'admin', password: 'p@ss', port: 80 },
      streams: [{ type: 'low', is_archive_enabled: true, archive_storage_days: 3 }],
    });
    await vss.streams.onDeviceAddress({ mac: '00:11:22:33:44:02', ip: '192.0.2.10' });
    await vss.streams.onDeviceAddress({ mac: '00:11:22:33:44:02', ip: '192.0.2.11' });
    const { streams, uuid } = await vss.cameras.get(created.id);
    expect(streams.map((stream) => [stream.uid, stream.url, stream.is_archive_enabled, stream.archive_storage_days])).toEqual([
      [`${uuid}-high`, 'rtsp://admin:***@192.0.2.11:554/Streaming/Channels/101', false, null],
      [`${uuid}-low`, 'rtsp://admin:***@192.0.2.11:554/Streaming/Channels/102', true, 3],
    ]);
  });

  it('restarts streams all or nothing', async () => {
    const created = await camera('00:11:22:33:44:03');
    const stream = await vss.streams.create(created.id, { type: 'high', url: 'rtsp://10.0.0.6/live' });
    await expect(vss.streams.restart([stream.uid, 'missing'])).rejects.toMatchObject({
      code: 'not_found',
      details: { data: { unknown_uids: ['missing'] } },
    });
    expect((await vss.streams.get(stream.uid)).reconnection.reset_at).toBeNull();
    await vss.streams.restart(stream.uid);
    expect((await vss.streams.get(stream.uid)).reconnection.reset_at).toBe(clock.toISOString());
  });

  it('signs access tokens for one stream only', async () => {
    const created = await camera('00:11:22:33:44:04');
    const stream = await vss.streams.create(created.id, { type: 'low', url: 'rtsp://10.0.0.7/live' });
    const token = await vss.tokens.issueAccessToken({ uid: stream.uid, user: 'viewer', duration: 0 });
    expect(vss.tokens.verifyAccessToken(token, stream.uid)).toBe(true);
    expect(vss.tokens.verifyAccessToken(token, 'another-stream')).toBe(false);
    expect(vss.tokens.verifyAccessToken(`${token}x`, stream.uid)).toBe(false);
  });
});
