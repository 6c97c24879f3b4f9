import { startFakeHikvisionIntercom } from '@vss/core/testing';
import { operations } from '@vss/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ForbiddenError, JsonRpcError, NotFoundError, type ArchiveWindow, type VssClient } from '../src';
import {
  eventually,
  isoDate,
  recordEvents,
  rejection,
  startRtspCameraServer,
  startTestServer,
  streamStatus,
  uniqueMac,
  type RtspCameraServer,
  type TestServer,
} from './support';

/** Every request the SDK sends in this file, as `METHOD pathname`, to check the table is covered. */
const sent: string[] = [];
const rpcBodies: unknown[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  sent.push(`${request.method} ${new URL(request.url).pathname}`);
  if (new URL(request.url).pathname === '/api/') rpcBodies.push(await request.clone().json());
  return fetch(request);
};

describe('@vss/client namespaces against the real server', () => {
  const releaseDate = isoDate(new Date());
  let server: TestServer;
  let client: VssClient;

  beforeAll(async () => {
    // v1 stays available for six months after this release date, so it is open during the test.
    server = await startTestServer('pglite', { env: { VSS_V2_RELEASE_DATE: releaseDate } });
    client = createClient({ baseUrl: server.url, token: server.token, fetch: recordingFetch });
  });
  afterAll(() => server?.stop());

  it('auth: issues an API token without one, and that token opens the API', async () => {
    const bootstrap = createClient({ baseUrl: server.url, fetch: recordingFetch });
    const token = await bootstrap.auth.issueApiToken({ client: 'sdk-test', duration: 60 });
    expect(token).toMatch(/\S{16,}/);
    expect(token).not.toBe(server.token);

    const withIssued = createClient({ baseUrl: server.url, token, fetch: recordingFetch });
    const group = await withIssued.treeElements.create({ name: 'Issued token works' });
    expect(group.name).toBe('Issued token works');
  });

  it('auth: issues an access token for a stream', async () => {
    const group = await client.treeElements.create({ name: 'Access' });
    const camera = await client.cameras.create({ name: 'Door', mac: uniqueMac(), group_id: group.id });
    const stream = await client.streams.create(camera.id, { type: 'high', url: 'rtsp://192.0.2.5/live', uid: 'access-high' });

    const accessToken = await client.auth.issueAccessToken({ uid: stream.uid, user: 'viewer-1', duration: 0 });
    expect(typeof accessToken).toBe('string');
    expect(accessToken.length).toBeGreaterThan(16);
    expect(accessToken).not.toBe(server.token);
  });

  it('treeElements and folders: create, list, get', async () => {
    const parent = await client.treeElements.create({ name: 'Site', key: 4242 });
    // Keys sent as integers come back as strings.
    expect(parent).toEqual({ id: expect.any(Number), name: 'Site', key: '4242', parent_id: null });
    const child = await client.treeElements.create({ name: 'Floor 1', parent_id: parent.id });
    expect(child.parent_id).toBe(parent.id);

    expect(await client.treeElements.get(parent.id)).toEqual(parent);
    const all = await client.treeElements.list();
    expect(all).toEqual(expect.arrayContaining([parent, child]));

    const folder = await client.folders.create(parent.id, { name: 'Private', key: 'f-1' });
    expect(folder).toEqual({ id: expect.any(Number), name: 'Private', key: 'f-1', tree_element_id: parent.id });
    expect(await client.folders.list(parent.id)).toEqual([folder]);
    expect(await client.folders.list(child.id)).toEqual([]);
  });

  it('cameras: creates with v2 archive settings, gets and lists a page at a time', async () => {
    const group = await client.treeElements.create({ name: 'Cameras', key: 'cams' });
    const folder = await client.folders.create(group.id, { name: 'Mine', key: 'mine' });
    const mac = uniqueMac();
    const created = await client.cameras.create({
      name: 'Lobby',
      mac,
      serial_number: 'SN-1',
      group_external_id: 'cams',
      folder_key: 'mine',
      latitude: 55.75,
      longitude: 37.61,
      streams: [
        { type: 'high', is_archive_enabled: true, archive_storage_days: 30 },
        { type: 'low', is_archive_enabled: false },
      ],
    });
    expect(created).toMatchObject({
      status: '',
      name: 'Lobby',
      is_archive_recording: true,
      archive_storage_days: 30,
      network_device: { mac, serial_number: 'SN-1' },
      folder: { id: folder.id, key: 'mine' },
      latitude: 55.75,
    });

    const camera = await client.cameras.get(created.id);
    expect(camera.tree_element_id).toBe(group.id);
    expect(camera.folder_id).toBe(folder.id);
    expect(camera.archive_settings).toEqual(
      expect.arrayContaining([
        { type: 'high', is_archive_enabled: true, archive_storage_days: 30 },
        { type: 'low', is_archive_enabled: false, archive_storage_days: null },
      ]),
    );

    const second = await client.cameras.create({ name: 'Yard', mac: uniqueMac(), group_id: group.id });
    const first = await client.cameras.list({ page: 1, per_page: 1 });
    const next = await client.cameras.list({ page: 2, per_page: 1 });
    expect(first.meta.per_page).toBe(1);
    expect(first.data).toHaveLength(1);
    expect(next.data).toHaveLength(1);
    expect(next.data[0]!.id).not.toBe(first.data[0]!.id);
    expect(first.meta.total).toBeGreaterThanOrEqual(2);
    const everything = await client.cameras.list({ per_page: 100 });
    expect(everything.data.map((c) => c.id)).toEqual(expect.arrayContaining([created.id, second.id]));
  });

  it('cameras.createV1: answers the camera with the Deprecation and Sunset dates', async () => {
    const group = await client.treeElements.create({ name: 'Legacy' });
    const { camera, deprecation, sunset } = await client.cameras.createV1({
      name: 'Old API',
      mac: uniqueMac(),
      group_id: group.id,
      is_archive_enabled: true,
      archive_storage_days: 7,
    });
    expect(camera).toMatchObject({ name: 'Old API', is_archive_recording: true, archive_storage_days: 7 });
    const released = new Date(`${releaseDate}T00:00:00Z`);
    expect(deprecation).toEqual(released);
    const expectedSunset = new Date(released);
    expectedSunset.setUTCMonth(expectedSunset.getUTCMonth() + 6);
    expect(sunset).toEqual(expectedSunset);
  });

  it('streams: create, get, onDeviceAddress and restart in all three params forms', async () => {
    const group = await client.treeElements.create({ name: 'Streams' });
    const mac = uniqueMac();
    const { id } = await client.cameras.create({
      name: 'Gate',
      mac,
      group_id: group.id,
      service: 'hikvision',
      streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 14 }],
    });
    const { uuid } = await client.cameras.get(id);

    await client.streams.onDeviceAddress({ mac, ip: '192.0.2.10' });
    const high = await client.streams.get(`${uuid}-high`);
    expect(high).toMatchObject({ camera_id: id, type: 'high', is_archive_enabled: true, archive_storage_days: 14 });
    expect(high.url).toMatch(/^rtsp:\/\/192\.0\.2\.10(:554)?\/Streaming\/Channels\/101$/);
    expect(high.reconnection.reset_at).toBeNull();
    const low = await client.streams.get(`${uuid}-low`);
    expect(low.url).toMatch(/^rtsp:\/\/192\.0\.2\.10(:554)?\/Streaming\/Channels\/102$/);

    expect(await client.streams.restart({ [uuid]: [high.uid] })).toBe('OK');
    expect((await client.streams.get(high.uid)).reconnection.reset_at).not.toBeNull();
    expect((await client.streams.get(low.uid)).reconnection.reset_at).toBeNull();
    expect(await client.streams.restart(low.uid)).toBe('OK');
    expect((await client.streams.get(low.uid)).reconnection.reset_at).not.toBeNull();
    expect(await client.streams.restart([high.uid, low.uid])).toBe('OK');

    const other = await client.cameras.create({ name: 'Explicit', mac: uniqueMac(), group_id: group.id });
    const explicit = await client.streams.create(other.id, {
      type: 'low',
      url: 'rtsp://admin:hunter2@192.0.2.20/sub',
      uid: 'explicit-low',
    });
    expect(explicit).toMatchObject({ uid: 'explicit-low', camera_id: other.id, type: 'low', status: 'empty' });
    expect(explicit.url).not.toContain('hunter2');
    expect(await client.streams.get('explicit-low')).toEqual(explicit);
  });

  it('analyticCases: create, get, stop and restart', async () => {
    const group = await client.treeElements.create({ name: 'Analytics' });
    const camera = await client.cameras.create({ name: 'Hall', mac: uniqueMac(), group_id: group.id });

    const created = await client.analyticCases.create(camera.id, { kind: 'motion_detection' });
    expect(created).toMatchObject({ camera_id: camera.id, kind: 'motion_detection', status: 'CREATED' });
    expect(await client.analyticCases.get(camera.id, created.id)).toEqual(created);

    const stopped = await client.analyticCases.stop(camera.id, created.id);
    expect(stopped.status).toBe('STOPPED');
    const restarted = await client.analyticCases.restart(camera.id, created.id);
    expect(restarted.status).toBe('PENDING');
    expect((await client.analyticCases.get(camera.id, created.id)).status).toBe('PENDING');
  });

  it('intercoms: create, list, get and restart through a fake Hikvision device', async () => {
    const device = await startFakeHikvisionIntercom({ login: 'admin', password: 'door-secret' });
    try {
      const intercom = await client.intercoms.create({
        name: 'Entrance',
        vendor: 'hikvision',
        host: device.host,
        port: device.port,
        login: 'admin',
        password: 'door-secret',
      });
      expect(intercom).toMatchObject({ name: 'Entrance', host: device.host, port: device.port, last_restart_at: null });
      expect(JSON.stringify(intercom)).not.toContain('door-secret');
      expect(await client.intercoms.list()).toContainEqual(intercom);

      await expect(client.intercoms.restart(intercom.id)).resolves.toBeUndefined();
      expect(device.rebootCount()).toBe(1);
      expect((await client.intercoms.get(intercom.id)).last_restart_at).not.toBeNull();
    } finally {
      await device.close();
    }
  });

  it('system: health and the OpenAPI document', async () => {
    expect(await client.system.health()).toEqual({ status: 'ok' });
    const document = await client.system.openApi();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths as object)).toContain('/api/v2/billing/cameras');

    // The HTML rendering of that document is for people, so the SDK has no call for it.
    const page = await recordingFetch(`${server.url}${operations.docs.path}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/api/v2/billing/cameras');
  });

  it('rpc: call, notify and batch, with ids counting up', async () => {
    const group = await client.treeElements.create({ name: 'RPC' });
    const camera = await client.cameras.create({ name: 'Rpc', mac: uniqueMac(), group_id: group.id });
    const stream = await client.streams.create(camera.id, { type: 'high', url: 'rtsp://192.0.2.30/live', uid: 'rpc-high' });

    rpcBodies.length = 0;
    expect(await client.rpc.call('Stream.Restart', [stream.uid])).toBe('OK');
    expect(await client.rpc.call('Stream.Restart', stream.uid)).toBe('OK');
    const [firstCall, secondCall] = rpcBodies as { id: number; jsonrpc: string }[];
    expect(firstCall!.jsonrpc).toBe('2.0');
    expect(secondCall!.id).toBe(firstCall!.id + 1);

    const fresh = await client.streams.create(camera.id, { type: 'low', url: 'rtsp://192.0.2.30/sub', uid: 'rpc-low' });
    expect(fresh.reconnection.reset_at).toBeNull();
    await expect(client.rpc.notify('Stream.Restart', [fresh.uid])).resolves.toBeUndefined();
    expect(rpcBodies.at(-1)).not.toHaveProperty('id');
    // A notification gets no answer, but it did run.
    expect((await client.streams.get(fresh.uid)).reconnection.reset_at).not.toBeNull();

    const results = await client.rpc.batch([
      { method: 'Stream.Restart', params: [stream.uid] },
      { method: 'Stream.Explode', params: [] },
      { method: 'Stream.Restart', params: ['no-such-stream'] },
    ]);
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({ ok: true, result: 'OK' });
    const [, unknownMethod, unknownUid] = results;
    expect(unknownMethod).toMatchObject({ ok: false, error: { code: 'jsonrpc_error', rpcCode: -32601 } });
    expect(unknownUid).toMatchObject({ ok: false, error: { rpcCode: -32602, data: { unknown_uids: ['no-such-stream'] } } });
    expect(await client.rpc.batch([])).toEqual([]);
  });

  describe('media, on a server that records a fake camera', () => {
    let camera: RtspCameraServer;
    let recording: TestServer;
    let vss: VssClient;
    let uid: string;
    /** A stretch the archive holds. */
    let window: ArchiveWindow;

    /** GET through the recording fetch, as a player or browser would follow a URL the SDK built. */
    async function follow(url: string, type: string) {
      const response = await recordingFetch(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type'), url).toMatch(new RegExp(`^${type}`));
      return response;
    }

    beforeAll(async () => {
      camera = await startRtspCameraServer();
      recording = await startTestServer('pglite', { media: { segmentSeconds: 2 } });
      vss = createClient({ baseUrl: recording.url, token: recording.token, fetch: recordingFetch });
      const group = await vss.treeElements.create({ name: 'Media' });
      const { id } = await vss.cameras.create({
        name: 'Porch',
        mac: uniqueMac(),
        group_id: group.id,
        streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 1 }],
      });
      uid = (await vss.streams.create(id, { type: 'high', url: camera.url('porch') })).uid;
      const events = recordEvents(recording, uid);
      try {
        await streamStatus(recording, uid, 'active');
        await eventually(async () => events.segments.length >= 2, { what: 'two recorded segments' });
      } finally {
        events.stop();
      }
      const last = (await vss.streams.archiveRanges(uid)).at(-1)!;
      window = { from: last.from, duration: Math.max(1, last.to - last.from - 1) };
    }, 90_000);
    afterAll(async () => {
      await recording?.stop();
      await camera?.close();
    });

    it('streams.archiveRanges: the recorded stretches in Unix seconds; 404 for an unknown stream', async () => {
      const ranges = await vss.streams.archiveRanges(uid);
      expect(ranges.length).toBeGreaterThanOrEqual(1);
      const last = ranges.at(-1)!;
      expect(last.to).toBeGreaterThan(last.from);
      expect(Math.abs(last.to - Date.now() / 1000)).toBeLessThan(120);
      expect(await rejection(vss.streams.archiveRanges('no-such-stream'))).toBeInstanceOf(NotFoundError);
    });

    it('streams.getMediaUrls: the server-made URLs are the ones media.urls builds for the same token', async () => {
      const result = await vss.streams.getMediaUrls({ uids: [uid], user: 'viewer-7', ttl: 600 });
      expect(Object.keys(result)).toEqual([uid]);
      const served = result[uid]!;
      const token = new URL(served.live).searchParams.get('token')!;
      expect(token.length).toBeGreaterThan(16);

      const built = vss.media.urls(uid, token);
      expect(built.live).toBe(served.live);
      expect(built.preview).toBe(served.preview);
      expect(built.player()).toBe(served.player);
      const fill = (template: string) =>
        template.replace('{from}', String(window.from)).replace('{duration}', String(window.duration));
      expect(built.archive(window)).toBe(fill(served.archive));
      expect(built.export(window)).toBe(fill(served.export));

      const unknown = await rejection(vss.streams.getMediaUrls({ uids: [uid, 'no-such-stream'] }));
      expect(unknown).toBeInstanceOf(JsonRpcError);
      expect(unknown).toMatchObject({ rpcCode: -32602, data: { unknown_uids: ['no-such-stream'] } });
    });

    it('media: playlist, segment, preview, archive, export and player through the URLs it builds', async () => {
      const token = await vss.auth.issueAccessToken({ uid, user: 'viewer-8', duration: 600 });
      const links = vss.media.urls(uid, token);

      const playlist = await vss.media.livePlaylist(uid, { token });
      expect(playlist).toMatch(/^#EXTM3U\n/);
      const segment = playlist.split('\n').find((line) => line.startsWith('segments/'))!;
      expect(segment).toContain(`token=${token}`);
      const ts = new Uint8Array(await (await follow(new URL(segment, links.live).href, 'video/mp2t')).arrayBuffer());
      expect(ts[0]).toBe(0x47); // MPEG-TS sync byte

      const jpeg = await vss.media.preview(uid, { token });
      expect(jpeg).toBeInstanceOf(Uint8Array);
      expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      // Without a token of its own the call carries the client's API token, which opens every stream.
      expect((await vss.media.preview(uid)).length).toBeGreaterThan(100);

      expect(await (await follow(links.archive(window), 'application/vnd.apple.mpegurl')).text()).toContain('#EXT-X-ENDLIST');
      const mp4 = new Uint8Array(await (await follow(links.export(window), 'video/mp4')).arrayBuffer());
      expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe('ftyp');

      const page = await (await follow(links.player(window), 'text/html')).text();
      expect(page).toContain('archive.m3u8?from=');
      const script = /<script src="([^"]+)"/.exec(page)![1]!;
      await follow(new URL(script, links.player()).href, 'text/javascript');
    });

    it('media: a token that does not open the stream is a ForbiddenError, even on a client with an API token', async () => {
      for (const call of [vss.media.livePlaylist(uid, { token: 'not-a-token' }), vss.media.preview(uid, { token: 'not-a-token' })]) {
        const error = await rejection(call);
        expect(error).toBeInstanceOf(ForbiddenError);
        expect(error).toMatchObject({ code: 'forbidden', status: 403 });
      }
    });

    it('media: a body of another type than the operation produces breaks the contract', async () => {
      const relabel: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        return new Response(await response.arrayBuffer(), { status: response.status, headers: { 'content-type': 'text/plain' } });
      };
      const strict = createClient({ baseUrl: recording.url, token: recording.token, fetch: relabel });
      expect(await rejection(strict.media.preview(uid))).toMatchObject({
        code: 'response_validation_failed',
        operation: 'mediaPreview',
        message: expect.stringContaining('text/plain, not image/jpeg'),
      });
      const lenient = createClient({ baseUrl: recording.url, token: recording.token, fetch: relabel, validateResponses: false });
      expect((await lenient.media.preview(uid))[0]).toBe(0xff);
    });
  });

  it('webhooks and events: CRUD, and the event stream from the start', async () => {
    const hook = await client.webhooks.create({ url: 'https://hooks.example.com/sdk' });
    expect(await client.webhooks.get(hook.id)).toMatchObject({ id: hook.id, events: null });
    expect((await client.webhooks.list()).map((h) => h.id)).toContain(hook.id);
    await client.webhooks.delete(hook.id);
    const controller = new AbortController();
    const first = await client.events.stream({ after: 0, signal: controller.signal }).next();
    controller.abort();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({ id: expect.any(Number), type: 'camera.created' });
  });

  it('covered every operation of the server', () => {
    const missing = Object.entries(operations)
      .filter(([, operation]) => {
        const pattern = new RegExp(`^${operation.method.toUpperCase()} ${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`);
        return !sent.some((line) => pattern.test(line));
      })
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });
});
