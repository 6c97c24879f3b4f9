import { closedPort, startRtspCameraServer, type RtspCameraServer } from '@vss/core/testing';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getStream, recordEvents, streamStatus } from '../support/media';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

const PASSWORD = 'Cam-Secret-91';
const DAY_MS = 86_400_000;


const segmentFiles = async (server: TestServer, uid: string) =>
  (await readdir(join(server.dataDir, 'media', uid)).catch(() => [] as string[])).filter((name) => name.endsWith('.ts'));

describe.each(databaseKinds(process.env.DATABASE_URL))('media ingest on %s', (kind) => {
  let camera: RtspCameraServer;
  let server: TestServer;
  let clockOffsetMs = 0;
  let cameraId: number;
  let uid: string;

  beforeAll(async () => {
    camera = await startRtspCameraServer({ login: 'admin', password: PASSWORD });
    server = await startTestServer(kind, {
      now: () => new Date(Date.now() + clockOffsetMs),
      media: { segmentSeconds: 2, reconnectLimit: 6, initialBackoffMs: 200, maxBackoffMs: 1_000, socketTimeoutSeconds: 3 },
    });
    const created = await createCamera(server, {
      streams: [
        { type: 'high', is_archive_enabled: true, archive_storage_days: 1 },
        { type: 'low', is_archive_enabled: false },
      ],
    });
    cameraId = created.id;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await camera?.close();
  });

  it('turns a stream active and records its segments to disk with the archive settings of its type', async () => {
    const response = await server.request(`/api/admin/v1/cameras/${cameraId}/streams`, {
      body: { type: 'high', url: camera.url('entrance', true) },
    });
    expect(response.status).toBe(201);
    const stream = await response.json();
    uid = stream.uid;
    expect(stream.is_archive_enabled).toBe(true);
    const events = recordEvents(server, uid);
    const active = await streamStatus(server, uid, 'active');
    expect(active.reconnection.attempts).toBe(0);
    await eventually(async () => events.segments.length >= 2, { what: 'two segments' });
    events.stop();
    for (const segment of events.segments) expect(segment.durationMs).toBeGreaterThan(0);
    expect((await segmentFiles(server, uid)).length).toBeGreaterThanOrEqual(2);
  });

  it('grows the reconnection data in an outage, recovers when the camera returns and records the gap', async () => {
    const events = recordEvents(server, uid);
    await camera.stop();
    let failing: Awaited<ReturnType<typeof getStream>>;
    try {
      failing = await eventually(
        async () => {
          const stream = await getStream(server, uid);
          return stream.reconnection.attempts >= 1 ? stream : undefined;
        },
        { what: 'a failed reconnection' },
      );
    } finally {
      // The camera comes back whatever happened, so that one failure does not take the next tests down.
      await camera.start();
    }
    expect(failing.reconnection.total).toBeGreaterThanOrEqual(1);
    expect(failing.reconnection.last_error).toBeTruthy();
    expect(failing.reconnection.last_error_at).toBeTruthy();
    expect(failing.status).not.toBe('active');
    const recovered = await streamStatus(server, uid, 'active');
    expect(recovered.reconnection.attempts).toBe(0);
    expect(recovered.reconnection.total).toBeGreaterThanOrEqual(1);
    await eventually(async () => events.gaps.length >= 1, { what: 'the gap of the outage' });
    events.stop();
    expect(events.gaps[0]!.to.getTime()).toBeGreaterThan(events.gaps[0]!.from.getTime());
    expect(events.segments.some((segment) => segment.discontinuity)).toBe(true);
  });

  it('restarts the ingest on Stream.Restart: counters zeroed, a new run of segments follows', async () => {
    const events = recordEvents(server, uid);
    const rpc = await server.request('/api/', {
      body: { jsonrpc: '2.0', method: 'Stream.Restart', params: [uid], id: 1 },
    });
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'OK' });
    const reset = await getStream(server, uid);
    expect(reset.reconnection).toMatchObject({ attempts: 0, total: 0, last_error: null });
    expect(reset.reconnection.reset_at).toBeTruthy();
    await eventually(async () => events.segments.some((segment) => segment.discontinuity), {
      what: 'the first segment after the restart',
    });
    events.stop();
    expect((await getStream(server, uid)).status).toBe('active');
  });

  it('turns a stream inactive after reconnect_limit failures and Stream.Restart brings it back', async () => {
    const port = await closedPort();
    const created = await server.request(`/api/admin/v1/cameras/${cameraId}/streams`, {
      body: { type: 'low', url: `rtsp://admin:${PASSWORD}@127.0.0.1:${port}/off` },
    });
    const { uid: deadUid } = await created.json();
    const inactive = await streamStatus(server, deadUid, 'inactive');
    expect(inactive.reconnection.attempts).toBe(6);
    expect(server.vss.media!.supervisor.running()).not.toContain(deadUid);
    await server.request('/api/', { body: { jsonrpc: '2.0', method: 'Stream.Restart', params: deadUid, id: 2 } });
    const revived = await eventually(
      async () => {
        const stream = await getStream(server, deadUid);
        return stream.status !== 'inactive' ? stream : undefined;
      },
      { what: 'the stream to leave inactive' },
    );
    expect(revived.reconnection.reset_at).toBeTruthy();
  });

  it('never lets the camera password reach a response, a log line or an event', async () => {
    const stream = await getStream(server, uid);
    expect(stream.url).toContain('admin:***@');
    const everything = JSON.stringify(server.logs) + JSON.stringify(await (await server.request(`/api/admin/v1/cameras/${cameraId}`)).json());
    expect(everything).not.toContain(PASSWORD);
  });

  it('deletes archive older than archive_storage_days and keeps the fresh segments', async () => {
    const before = await segmentFiles(server, uid);
    expect(before.length).toBeGreaterThan(0);
    // Two days pass: everything recorded so far is past the stream's one-day archive.
    clockOffsetMs = 2 * DAY_MS;
    const events = recordEvents(server, uid);
    await eventually(async () => events.segments.length >= 1, { what: 'a segment recorded after the jump' });
    events.stop();
    await server.vss.media!.sweep();
    const after = await segmentFiles(server, uid);
    const cutoff = Date.now() + clockOffsetMs - DAY_MS;
    expect(after.filter((name) => Number.parseInt(name, 10) < cutoff)).toEqual([]);
    expect(after.filter((name) => Number.parseInt(name, 10) >= cutoff).length).toBeGreaterThanOrEqual(1);
    expect(before.some((name) => after.includes(name))).toBe(false);
  });
});
