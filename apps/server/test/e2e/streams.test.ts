import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cameraBody,
  createCameraV2,
  createTreeElement,
  expectNotFound,
  expectStatus,
  expectUnauthenticated,
  expectValidationError,
  getCamera,
  logText,
  postDeviceAddress,
  postStream,
  randomMac,
  readJson,
  uniqueName,
  type Json,
} from '../support/fixtures';
import { databaseKinds, startTestServer, type TestServer } from '../support/server';

const STREAM_FIELDS = [
  'archive_storage_days',
  'camera_id',
  'created_at',
  'is_archive_enabled',
  'reconnection',
  'status',
  'type',
  'uid',
  'updated_at',
  'url',
];
const STATUSES = ['empty', 'initialization', 'active', 'inactive'];
/** The archive settings every camera of this file is created with. */
const ARCHIVE = [
  { type: 'high', is_archive_enabled: true, archive_storage_days: 7 },
  { type: 'low', is_archive_enabled: false },
];

describe.each(databaseKinds(process.env.DATABASE_URL))('streams on %s', (kind) => {
  let server: TestServer;
  let groupId: number;
  /** Passwords that must never leave the server. */
  const urlPassword = uniqueName('url-secret');
  const onvifPassword = uniqueName('onvif-secret');

  beforeAll(async () => {
    server = await startTestServer(kind);
    groupId = (await createTreeElement(server)).id;
  });
  afterAll(() => server?.stop());

  /** A hikvision camera with ONVIF credentials and the archive settings above; the GET view. */
  async function newCamera(fields: Record<string, unknown> = {}): Promise<Json> {
    const created = await createCameraV2(
      server,
      cameraBody(groupId, {
        service: 'hikvision',
        onvif_credentials: { login: 'admin', password: onvifPassword },
        streams: ARCHIVE,
        ...fields,
      }),
    );
    return getCamera(server, created.id);
  }

  describe('POST /api/admin/v1/cameras/{camera}/streams', () => {
    it('answers 201 with the default uid, the stored archive settings and the password masked', async () => {
      const camera = await newCamera();
      const response = await postStream(server, camera.id, {
        type: 'high',
        url: `rtsp://viewer:${urlPassword}@192.0.2.10:554/live`,
      });
      const text = await response.text();
      expect(response.status).toBe(201);
      expect(text).not.toContain(urlPassword);
      const stream = JSON.parse(text);
      expect(Object.keys(stream).sort()).toEqual(STREAM_FIELDS);
      expect(stream).toMatchObject({
        uid: `${camera.uuid}-high`,
        camera_id: camera.id,
        type: 'high',
        url: 'rtsp://viewer:***@192.0.2.10:554/live',
        is_archive_enabled: true,
        archive_storage_days: 7,
      });
      expect(STATUSES).toContain(stream.status);
      expect(logText(server)).not.toContain(urlPassword);
    });

    it('answers 201 with a custom uid and the low archive settings', async () => {
      const camera = await newCamera();
      const uid = uniqueName('custom_Uid');
      const stream = await expectStatus(await postStream(server, camera.id, { type: 'low', url: 'rtsp://192.0.2.11/sub', uid }), 201);
      expect(stream).toMatchObject({ uid, type: 'low', url: 'rtsp://192.0.2.11/sub', is_archive_enabled: false, archive_storage_days: null });
      expect((await getCamera(server, camera.id)).streams.map((s: Json) => s.uid)).toEqual([uid]);
    });

    it('applies archive off to a type the camera stored no settings for', async () => {
      const camera = await newCamera({ streams: undefined });
      const stream = await expectStatus(await postStream(server, camera.id, { type: 'high', url: 'rtsp://192.0.2.12/' }), 201);
      expect(stream).toMatchObject({ is_archive_enabled: false, archive_storage_days: null });
    });

    it('refuses a second stream of the same type (422)', async () => {
      const camera = await newCamera();
      await expectStatus(await postStream(server, camera.id, { type: 'high', url: 'rtsp://192.0.2.13/a' }), 201);
      await expectValidationError(
        await postStream(server, camera.id, { type: 'high', url: 'rtsp://192.0.2.13/b', uid: uniqueName('other') }),
        ['type'],
      );
      expect((await getCamera(server, camera.id)).streams).toHaveLength(1);
    });

    it('lets exactly one of concurrent creations of the same type win; the others get 422 errors.type', async () => {
      const camera = await newCamera();
      const responses = await Promise.all(
        [0, 1, 2, 3].map((i) => postStream(server, camera.id, { type: 'high', url: 'rtsp://192.0.2.16/', uid: uniqueName(`race${i}`) })),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([201, 422, 422, 422]);
      for (const response of responses.filter((r) => r.status === 422)) await expectValidationError(response, ['type']);
      expect((await getCamera(server, camera.id)).streams).toHaveLength(1);
    });

    it('lets exactly one of concurrent creations with the same uid win; the others get 422 errors.uid', async () => {
      const uid = uniqueName('race-uid');
      const cameras = [await newCamera(), await newCamera(), await newCamera()];
      const responses = await Promise.all(
        cameras.map((camera) => postStream(server, camera.id, { type: 'low', url: 'rtsp://192.0.2.17/', uid })),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([201, 422, 422]);
      for (const response of responses.filter((r) => r.status === 422)) await expectValidationError(response, ['uid']);
    });

    it('refuses a uid another stream has (422 errors.uid)', async () => {
      const uid = uniqueName('taken');
      await expectStatus(await postStream(server, (await newCamera()).id, { type: 'high', url: 'rtsp://192.0.2.14/', uid }), 201);
      const other = await newCamera();
      await expectValidationError(await postStream(server, other.id, { type: 'high', url: 'rtsp://192.0.2.15/', uid }), ['uid']);
      expect((await getCamera(server, other.id)).streams).toEqual([]);
    });

    it.each(['file:///etc/passwd', 'ftp://192.0.2.1/video', 'not a url', 'javascript:alert(1)'])(
      'refuses the url %s (422 errors.url)',
      async (url) => {
        const camera = await newCamera();
        await expectValidationError(await postStream(server, camera.id, { type: 'high', url }), ['url']);
      },
    );

    it('never echoes nor logs the password of a refused url', async () => {
      const camera = await newCamera();
      const secret = uniqueName('refused-secret');
      const response = await postStream(server, camera.id, { type: 'high', url: `ftp://u:${secret}@192.0.2.1/` });
      const text = await response.text();
      expect(response.status).toBe(422);
      expect(text).not.toContain(secret);
      expect(logText(server)).not.toContain(secret);
    });

    it.each(['a b', 'a/b', '', 'ü', 'a.b'])('refuses the uid %j (422 errors.uid)', async (uid) => {
      const camera = await newCamera();
      await expectValidationError(await postStream(server, camera.id, { type: 'high', url: 'rtsp://192.0.2.1/', uid }), ['uid']);
    });

    it('refuses a missing or unknown type', async () => {
      const camera = await newCamera();
      await expectValidationError(await postStream(server, camera.id, { url: 'rtsp://192.0.2.1/' }), ['type']);
      await expectValidationError(await postStream(server, camera.id, { type: 'mid', url: 'rtsp://192.0.2.1/' }), ['type']);
    });

    it.each([2_000_000_000, 'abc'])('answers 404 for the unknown camera %s', async (id) => {
      await expectNotFound(await postStream(server, id, { type: 'high', url: 'rtsp://192.0.2.1/' }));
    });

    it('answers 401 without a token', async () => {
      const camera = await newCamera();
      await expectUnauthenticated(
        await server.request(`/api/admin/v1/cameras/${camera.id}/streams`, {
          body: { type: 'high', url: 'rtsp://192.0.2.1/' },
          token: false,
        }),
      );
      expect((await getCamera(server, camera.id)).streams).toEqual([]);
    });
  });

  describe('GET /api/admin/v1/streams/{uid}', () => {
    it('answers 200 with the status and the reconnection data', async () => {
      const camera = await newCamera();
      const created = await expectStatus(
        await postStream(server, camera.id, { type: 'low', url: `rtsp://u:${urlPassword}@192.0.2.20/` }),
        201,
      );
      const response = await server.request(`/api/admin/v1/streams/${created.uid}`);
      expect(response.status).toBe(200);
      const stream = await readJson(response);
      expect(stream).toEqual(created);
      expect(Object.keys(stream.reconnection).sort()).toEqual(['attempts', 'last_error', 'last_error_at', 'reset_at', 'total']);
      expect(stream.reconnection).toMatchObject({ attempts: expect.any(Number), total: expect.any(Number) });
      expect(STATUSES).toContain(stream.status);
      expect(stream.url).toBe('rtsp://u:***@192.0.2.20/');
    });

    it.each(['no-such-stream', 'a%20b', 'a.b'])('answers 404 for %s', async (uid) => {
      await expectNotFound(await server.request(`/api/admin/v1/streams/${uid}`));
    });

    it('answers 401 without a token', async () => {
      await expectUnauthenticated(await server.request('/api/admin/v1/streams/anything', { token: false }));
    });
  });

  describe('POST /api/v1/billing/streams', () => {
    it("answers 204 and creates the high and low streams from the camera's profile, with the stored archive settings", async () => {
      const camera = await newCamera();
      const response = await postDeviceAddress(server, { mac: camera.mac.toUpperCase(), ip: '192.0.2.50' });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      const { streams } = await getCamera(server, camera.id);
      expect(streams).toHaveLength(2);
      expect(streams.map((stream: Json) => [stream.type, stream.uid, stream.url, stream.is_archive_enabled, stream.archive_storage_days])).toEqual([
        ['high', `${camera.uuid}-high`, 'rtsp://admin:***@192.0.2.50:554/Streaming/Channels/101', true, 7],
        ['low', `${camera.uuid}-low`, 'rtsp://admin:***@192.0.2.50:554/Streaming/Channels/102', false, null],
      ]);
    });

    it('moves the streams to a new address and keeps their uids, a custom one included', async () => {
      const camera = await newCamera();
      const customUid = uniqueName('kept');
      await expectStatus(await postStream(server, camera.id, { type: 'low', url: 'rtsp://192.0.2.60/old', uid: customUid }), 201);
      expect((await postDeviceAddress(server, { mac: camera.mac, ip: '192.0.2.61' })).status).toBe(204);
      const first = (await getCamera(server, camera.id)).streams;
      expect((await postDeviceAddress(server, { mac: camera.mac, ip: '2001:db8::7' })).status).toBe(204);
      const second = (await getCamera(server, camera.id)).streams;
      expect(second.map((stream: Json) => stream.uid)).toEqual([`${camera.uuid}-high`, customUid]);
      expect(second.map((stream: Json) => stream.uid)).toEqual(first.map((stream: Json) => stream.uid));
      expect(first.map((stream: Json) => stream.url)).toEqual([
        'rtsp://admin:***@192.0.2.61:554/Streaming/Channels/101',
        'rtsp://admin:***@192.0.2.61:554/Streaming/Channels/102',
      ]);
      expect(second.map((stream: Json) => stream.url)).toEqual([
        'rtsp://admin:***@[2001:db8::7]:554/Streaming/Channels/101',
        'rtsp://admin:***@[2001:db8::7]:554/Streaming/Channels/102',
      ]);
    });

    it('handles concurrent callbacks for one camera: all 204, one stream per type, one address', async () => {
      const ips = ['192.0.2.101', '192.0.2.102', '192.0.2.103', '192.0.2.104', '192.0.2.105', '192.0.2.106', '192.0.2.107', '192.0.2.108'];
      for (let round = 0; round < 4; round++) {
        const camera = await newCamera();
        const responses = await Promise.all(ips.map((ip) => postDeviceAddress(server, { mac: camera.mac, ip })));
        expect(responses.map((response) => response.status)).toEqual(ips.map(() => 204));
        const { streams } = await getCamera(server, camera.id);
        expect(streams.map((stream: Json) => stream.uid)).toEqual([`${camera.uuid}-high`, `${camera.uuid}-low`]);
        const ip = /@([\d.]+):/.exec(streams[0].url)?.[1];
        expect(ips).toContain(ip);
        expect(streams[1].url).toContain(`@${ip}:`);
      }
    });

    it('never returns nor logs the ONVIF password put into the URLs', async () => {
      const camera = await newCamera();
      expect((await postDeviceAddress(server, { mac: camera.mac, ip: '192.0.2.70' })).status).toBe(204);
      const text = await (await server.request(`/api/admin/v1/cameras/${camera.id}`)).text();
      expect(text).not.toContain(onvifPassword);
      expect(await (await server.request(`/api/admin/v1/streams/${camera.uuid}-high`)).text()).not.toContain(onvifPassword);
      expect(logText(server)).not.toContain(onvifPassword);
    });

    it("answers 422, not 500, when another camera's stream already holds the camera's default uid", async () => {
      const camera = await newCamera();
      const squatter = await newCamera();
      const squatted = `${camera.uuid}-high`;
      await expectStatus(await postStream(server, squatter.id, { type: 'high', url: 'rtsp://192.0.2.85/', uid: squatted }), 201);
      await expectValidationError(await postDeviceAddress(server, { mac: camera.mac, ip: '192.0.2.86' }), ['mac']);
      expect((await getCamera(server, camera.id)).streams).toEqual([]);
      const kept = await expectStatus(await server.request(`/api/admin/v1/streams/${squatted}`), 200);
      expect(kept).toMatchObject({ camera_id: squatter.id, url: 'rtsp://192.0.2.85/' });
    });

    it('refuses a mac no camera has (422 errors.mac)', async () => {
      await expectValidationError(await postDeviceAddress(server, { mac: randomMac(), ip: '192.0.2.80' }), ['mac']);
    });

    it.each([
      ['a bad ip', { ip: '999.1.1.1' }, 'ip'],
      ['a host name as ip', { ip: 'camera.local' }, 'ip'],
      ['a missing ip', { ip: undefined }, 'ip'],
      ['a bad mac', { mac: '00:11:22' }, 'mac'],
    ])('refuses %s', async (_, fields, field) => {
      const camera = await newCamera();
      await expectValidationError(await postDeviceAddress(server, { mac: camera.mac, ip: '192.0.2.90', ...fields }), [field]);
      expect((await getCamera(server, camera.id)).streams).toEqual([]);
    });

    it('answers 401 without a token', async () => {
      const camera = await newCamera();
      await expectUnauthenticated(await postDeviceAddress(server, { mac: camera.mac, ip: '192.0.2.91' }, false));
      expect((await getCamera(server, camera.id)).streams).toEqual([]);
    });
  });
});
