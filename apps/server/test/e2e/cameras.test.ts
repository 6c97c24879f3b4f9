import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cameraBody,
  cameraCount,
  createCameraV2,
  createClock,
  createFolder,
  createTreeElement,
  expectedValidationMessage,
  expectNotFound,
  expectStatus,
  expectUnauthenticated,
  expectValidationError,
  getCamera,
  logText,
  postCameraV2,
  randomMac,
  readJson,
  uniqueInteger,
  uniqueName,
  type Json,
} from '../support/fixtures';
import { databaseKinds, startTestServer, type TestServer } from '../support/server';

/** The fields of the 201 answer, exactly as the specification lists them. */
const CREATED_FIELDS = [
  'id',
  'status',
  'name',
  'is_archive_recording',
  'archive_storage_days',
  'group_type',
  'is_user_owner',
  'is_need_replace',
  'latitude',
  'longitude',
  'network_device',
  'folder',
].sort();

const V2_RELEASE = '2026-11-21';
/** RFC 9745: `@` and the release date in unix seconds. */
const DEPRECATION = `@${Date.UTC(2026, 10, 21) / 1000}`;
/** RFC 8594 HTTP date, six months after the release. */
const SUNSET = 'Fri, 21 May 2027 00:00:00 GMT';
const SUNSET_DATE = new Date('2027-05-21T00:00:00Z');

describe.each(databaseKinds(process.env.DATABASE_URL))('cameras on %s', (kind) => {
  const clock = createClock(new Date('2026-12-01T00:00:00Z'));
  let server: TestServer;
  /** Tree element A, with a string key and two folders (string key, integer key). */
  let groupA: Json;
  let folderA: Json;
  let folderAInt: Json;
  let folderAIntKey: number;
  /** Tree element B with one folder; tree element C keyed by an integer. */
  let groupB: Json;
  let folderB: Json;
  let groupC: Json;
  let groupCKey: number;

  beforeAll(async () => {
    server = await startTestServer(kind, { now: clock.now, env: { VSS_V2_RELEASE_DATE: V2_RELEASE } });
    groupA = await createTreeElement(server, { name: 'A', key: uniqueName('group-a') });
    folderA = await createFolder(server, groupA.id, { key: uniqueName('folder-a') });
    folderAIntKey = uniqueInteger();
    folderAInt = await createFolder(server, groupA.id, { key: folderAIntKey });
    groupB = await createTreeElement(server, { name: 'B', key: uniqueName('group-b') });
    folderB = await createFolder(server, groupB.id, { key: uniqueName('folder-b') });
    groupCKey = uniqueInteger();
    groupC = await createTreeElement(server, { name: 'C', key: groupCKey });
  });
  afterAll(() => server?.stop());

  const body = (fields: Record<string, unknown> = {}) => cameraBody(groupA.id, fields);

  describe('POST /api/v2/billing/cameras', () => {
    it('answers 201 with exactly the documented fields, typed as documented', async () => {
      const mac = randomMac();
      const response = await postCameraV2(server, {
        name: 'Front door',
        mac,
        serial_number: 'SN-001',
        group_type: 'public',
        group_id: groupA.id,
        folder_id: folderA.id,
        is_user_owner: true,
        latitude: 55.75,
        longitude: -37.61,
        streams: [
          { type: 'high', is_archive_enabled: true, archive_storage_days: 30 },
          { type: 'low', is_archive_enabled: false },
        ],
      });
      expect(response.status).toBe(201);
      const created = await readJson(response);
      expect(Object.keys(created).sort()).toEqual(CREATED_FIELDS);
      expect(Object.keys(created.network_device).sort()).toEqual(['mac', 'serial_number']);
      expect(Object.keys(created.folder).sort()).toEqual(['id', 'key']);
      expect(Number.isInteger(created.id)).toBe(true);
      expect(created).toEqual({
        id: created.id,
        status: '',
        name: 'Front door',
        is_archive_recording: true,
        archive_storage_days: 30,
        group_type: 'public',
        is_user_owner: true,
        is_need_replace: false,
        latitude: 55.75,
        longitude: -37.61,
        network_device: { mac, serial_number: 'SN-001' },
        folder: { id: folderA.id, key: folderA.key },
      });
    });

    it('places the camera by group_id', async () => {
      const created = await createCameraV2(server, body());
      expect((await getCamera(server, created.id)).tree_element_id).toBe(groupA.id);
    });

    it('places the camera by group_external_id given as a string', async () => {
      const created = await createCameraV2(server, { name: 'C', mac: randomMac(), group_external_id: groupA.key });
      expect((await getCamera(server, created.id)).tree_element_id).toBe(groupA.id);
    });

    it('places the camera by group_external_id given as an integer', async () => {
      expect(groupC.key).toBe(String(groupCKey));
      const created = await createCameraV2(server, { name: 'C', mac: randomMac(), group_external_id: groupCKey });
      expect((await getCamera(server, created.id)).tree_element_id).toBe(groupC.id);
    });

    it('places the camera in a folder by folder_id', async () => {
      const created = await createCameraV2(server, body({ folder_id: folderA.id }));
      expect(created.folder).toEqual({ id: folderA.id, key: folderA.key });
      expect((await getCamera(server, created.id)).folder_id).toBe(folderA.id);
    });

    it('places the camera in a folder by folder_key given as a string', async () => {
      const created = await createCameraV2(server, body({ folder_key: folderA.key }));
      expect(created.folder).toEqual({ id: folderA.id, key: folderA.key });
    });

    it('places the camera in a folder by folder_key given as an integer', async () => {
      const created = await createCameraV2(server, body({ folder_key: folderAIntKey }));
      expect(created.folder).toEqual({ id: folderAInt.id, key: String(folderAIntKey) });
    });

    it('refuses a folder of another tree element by id (422 errors.folder_id)', async () => {
      await expectValidationError(await postCameraV2(server, body({ folder_id: folderB.id })), ['folder_id']);
    });

    it('refuses a folder key of another tree element (422 errors.folder_key)', async () => {
      await expectValidationError(await postCameraV2(server, body({ folder_key: folderB.key })), ['folder_key']);
    });

    it('refuses an unknown folder_id', async () => {
      await expectValidationError(await postCameraV2(server, body({ folder_id: 2_000_000_000 })), ['folder_id']);
    });

    it('refuses an unknown group (422)', async () => {
      await expectValidationError(await postCameraV2(server, body({ group_id: 2_000_000_000 })), ['group_id']);
      await expectValidationError(
        await postCameraV2(server, { name: 'C', mac: randomMac(), group_external_id: uniqueName('nope') }),
        ['group_external_id'],
      );
    });

    it('refuses a group_external_id naming another tree element than group_id', async () => {
      await expectValidationError(await postCameraV2(server, body({ group_external_id: groupB.key })), ['group_external_id']);
      expect((await createCameraV2(server, body({ group_external_id: groupA.key }))).id).toEqual(expect.any(Number));
    });

    it('refuses a folder_key naming another folder than folder_id', async () => {
      await expectValidationError(await postCameraV2(server, body({ folder_id: folderA.id, folder_key: folderAIntKey })), ['folder_key']);
      expect((await createCameraV2(server, body({ folder_id: folderA.id, folder_key: folderA.key }))).folder.id).toBe(folderA.id);
    });

    it('refuses a missing group (422 errors.group_id)', async () => {
      await expectValidationError(await postCameraV2(server, { name: 'C', mac: randomMac() }), ['group_id']);
    });

    it('refuses a duplicate stream type (422 errors["streams.1.type"])', async () => {
      const response = await postCameraV2(
        server,
        body({
          streams: [
            { type: 'high', is_archive_enabled: false },
            { type: 'high', is_archive_enabled: false },
          ],
        }),
      );
      await expectValidationError(response, ['streams.1.type']);
    });

    it('refuses a stream type other than high and low', async () => {
      const response = await postCameraV2(server, body({ streams: [{ type: 'medium', is_archive_enabled: false }] }));
      await expectValidationError(response, ['streams.0.type']);
    });

    it.each([0, 91, -1, 30.5])('refuses archive_storage_days %s (422 errors["streams.0.archive_storage_days"])', async (days) => {
      const response = await postCameraV2(
        server,
        body({ streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: days }] }),
      );
      await expectValidationError(response, ['streams.0.archive_storage_days']);
    });

    it.each([1, 90])('accepts archive_storage_days %s and stores it', async (days) => {
      const created = await createCameraV2(
        server,
        body({ streams: [{ type: 'low', is_archive_enabled: true, archive_storage_days: days }] }),
      );
      expect(created.archive_storage_days).toBe(days);
      expect((await getCamera(server, created.id)).archive_settings).toEqual([
        { type: 'low', is_archive_enabled: true, archive_storage_days: days },
      ]);
    });

    it.each(['00:11:22:33:44', '001122334455', 'zz:11:22:33:44:55', '00-11-22-33-44-55', ''])(
      'refuses the mac %j',
      async (mac) => {
        await expectValidationError(await postCameraV2(server, body({ mac })), ['mac']);
      },
    );

    it('refuses latitude 91 and longitude -181, accepts the limits 90 and -180', async () => {
      await expectValidationError(await postCameraV2(server, body({ latitude: 91 })), ['latitude']);
      await expectValidationError(await postCameraV2(server, body({ longitude: -181 })), ['longitude']);
      const created = await createCameraV2(server, body({ latitude: 90, longitude: -180 }));
      expect([created.latitude, created.longitude]).toEqual([90, -180]);
    });

    it.each([0, 65536])('refuses onvif_credentials.port %s', async (port) => {
      const response = await postCameraV2(server, body({ onvif_credentials: { login: 'admin', password: 'pw', port } }));
      await expectValidationError(response, ['onvif_credentials.port']);
    });

    it('refuses a duplicate external_id', async () => {
      const externalId = uniqueName('ext');
      await createCameraV2(server, body({ external_id: externalId }));
      await expectValidationError(await postCameraV2(server, body({ external_id: externalId })), ['external_id']);
    });

    it('refuses a duplicate mac in another letter case', async () => {
      const mac = `0a:bc:${randomMac().slice(6)}`;
      await createCameraV2(server, body({ mac }));
      await expectValidationError(await postCameraV2(server, body({ mac: mac.toUpperCase() })), ['mac']);
    });

    it.each([
      ['an object', { source: 'billing', tags: ['a'] }],
      ['a string', 'free text'],
      ['an array', [1, 'two', { three: 3 }]],
    ])('accepts log_extra as %s and keeps it', async (_, logExtra) => {
      const created = await createCameraV2(server, body({ log_extra: logExtra }));
      expect((await getCamera(server, created.id)).log_extra).toEqual(logExtra);
    });

    it('refuses a lone UTF-16 surrogate in log_extra, which the database cannot store', async () => {
      const text = JSON.stringify(body()).slice(0, -1) + ',"log_extra":{"note":"\\ud800"}}';
      await expectValidationError(await postCameraV2(server, text), ['log_extra.note']);
    });

    it('refuses log_extra as a number', async () => {
      await expectValidationError(await postCameraV2(server, body({ log_extra: 42 })), ['log_extra']);
    });

    it('accepts a known service and refuses an unknown one', async () => {
      const created = await createCameraV2(server, body({ service: 'hikvision' }));
      expect((await getCamera(server, created.id)).service).toBe('hikvision');
      await expectValidationError(await postCameraV2(server, body({ service: 'no-such-profile' })), ['service']);
    });

    it('refuses a group_type other than public and private', async () => {
      await expectValidationError(await postCameraV2(server, body({ group_type: 'secret' })), ['group_type']);
    });

    it('gives the first reason as the message, plus "(and N more errors)" when there are several', async () => {
      const single = await expectValidationError(await postCameraV2(server, body({ latitude: 91 })), ['latitude']);
      expect(single.message).toBe(single.errors.latitude[0]);

      const several = await expectValidationError(
        await postCameraV2(server, { name: '', mac: 'bad', latitude: 91, longitude: 181 }),
        ['name', 'mac', 'latitude', 'longitude', 'group_id'],
      );
      const reasons = Object.values(several.errors as Record<string, string[]>).flat();
      expect(reasons.length).toBeGreaterThanOrEqual(5);
      expect(several.message).toBe(`${reasons[0]} (and ${reasons.length - 1} more errors)`);
      expect(several.message).toBe(expectedValidationMessage(several.errors));
    });

    it('answers 401 without a token and creates nothing', async () => {
      const before = await cameraCount(server);
      await expectUnauthenticated(await postCameraV2(server, body(), false));
      expect(await cameraCount(server)).toBe(before);
    });

    it('lets exactly one of concurrent creations with the same mac win; the others get 422 errors.mac', async () => {
      const mac = randomMac();
      const before = await cameraCount(server);
      const responses = await Promise.all(
        [0, 1, 2, 3, 4].map((i) => postCameraV2(server, body({ mac: i % 2 ? mac.toUpperCase() : mac }))),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([201, 422, 422, 422, 422]);
      for (const response of responses.filter((r) => r.status === 422)) await expectValidationError(response, ['mac']);
      expect(await cameraCount(server)).toBe(before + 1);
    });

    it('lets exactly one of concurrent creations with the same external_id win; the others get 422 errors.external_id', async () => {
      const externalId = uniqueName('race');
      const responses = await Promise.all([0, 1, 2, 3].map(() => postCameraV2(server, body({ external_id: externalId }))));
      expect(responses.map((response) => response.status).sort()).toEqual([201, 422, 422, 422]);
      for (const response of responses.filter((r) => r.status === 422)) await expectValidationError(response, ['external_id']);
    });

    it('creates nothing when it answers 422', async () => {
      const taken = await createCameraV2(server, body({ external_id: uniqueName('taken') }));
      const takenCamera = await getCamera(server, taken.id);
      const before = await cameraCount(server);
      const refused = [
        body({ latitude: 91 }),
        body({ folder_id: folderB.id }),
        body({ service: 'no-such-profile' }),
        body({ mac: takenCamera.mac.toUpperCase() }),
        body({ external_id: takenCamera.external_id }),
        body({ streams: [{ type: 'low', is_archive_enabled: true, archive_storage_days: 91 }] }),
        { name: 'No group', mac: randomMac() },
      ];
      for (const camera of refused) expect((await postCameraV2(server, camera)).status).toBe(422);
      expect(await cameraCount(server)).toBe(before);
    });

    it('never returns nor logs the ONVIF password', async () => {
      const password = uniqueName('onvif-secret');
      const response = await postCameraV2(server, body({ onvif_credentials: { login: 'admin', password, port: 8000 } }));
      const text = await response.text();
      expect(response.status).toBe(201);
      expect(text).not.toContain(password);
      const { id } = JSON.parse(text);
      const one = await server.request(`/api/admin/v1/cameras/${id}`);
      const oneText = await one.text();
      expect(oneText).not.toContain(password);
      expect(JSON.parse(oneText).onvif).toEqual({ login: 'admin', port: 8000 });
      const list = await expectStatus(await server.request('/api/admin/v1/cameras?per_page=100'), 200);
      for (let page = 1; page <= list.meta.last_page; page++) {
        const pageText = await (await server.request(`/api/admin/v1/cameras?per_page=100&page=${page}`)).text();
        expect(pageText).not.toContain(password);
      }
      expect(logText(server)).not.toContain(password);
    });
  });

  describe('GET /api/admin/v1/cameras', () => {
    it('pages through every camera once, with consistent meta', async () => {
      for (let i = 0; i < 3; i++) await createCameraV2(server, body());
      const first = await expectStatus(await server.request('/api/admin/v1/cameras?page=1&per_page=2'), 200);
      const { total } = first.meta;
      expect(total).toBeGreaterThanOrEqual(3);
      expect(first.meta).toEqual({ page: 1, per_page: 2, total, last_page: Math.ceil(total / 2) });
      const seen: number[] = [];
      for (let page = 1; page <= first.meta.last_page; page++) {
        const list = await expectStatus(await server.request(`/api/admin/v1/cameras?page=${page}&per_page=2`), 200);
        expect(list.meta).toEqual({ page, per_page: 2, total, last_page: first.meta.last_page });
        expect(list.data.length).toBe(Math.min(2, total - (page - 1) * 2));
        seen.push(...list.data.map((camera: Json) => camera.id));
      }
      expect(new Set(seen).size).toBe(total);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const beyond = await expectStatus(await server.request(`/api/admin/v1/cameras?page=${first.meta.last_page + 1}&per_page=2`), 200);
      expect(beyond.data).toEqual([]);
    });

    it('accepts per_page 100', async () => {
      const list = await expectStatus(await server.request('/api/admin/v1/cameras?per_page=100'), 200);
      expect(list.meta.per_page).toBe(100);
      expect(list.data.length).toBe(Math.min(100, list.meta.total));
    });

    it.each([
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
    ])('answers 422 for ?%s', async (query, field) => {
      await expectValidationError(await server.request(`/api/admin/v1/cameras?${query}`), [field]);
    });

    it('answers 401 without a token', async () => {
      await expectUnauthenticated(await server.request('/api/admin/v1/cameras', { token: false }));
    });
  });

  describe('GET /api/admin/v1/cameras/{camera}', () => {
    it('shows the uuid, the stored archive settings per type and the streams', async () => {
      const created = await createCameraV2(
        server,
        body({
          external_id: uniqueName('ext'),
          is_can_manage_archive_storage_days: true,
          streams: [
            { type: 'low', is_archive_enabled: false },
            { type: 'high', is_archive_enabled: true, archive_storage_days: 14 },
          ],
        }),
      );
      const camera = await getCamera(server, created.id);
      expect(camera.id).toBe(created.id);
      expect(camera.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(camera.archive_settings).toEqual([
        { type: 'high', is_archive_enabled: true, archive_storage_days: 14 },
        { type: 'low', is_archive_enabled: false, archive_storage_days: null },
      ]);
      expect(camera.streams).toEqual([]);
      expect(camera.status).toBe('');
      expect(camera.is_can_manage_archive_storage_days).toBe(true);
    });

    it.each(['2000000000', 'abc', '0', '-1', '1.5', '99999999999'])('answers 404 for /cameras/%s', async (id) => {
      await expectNotFound(await server.request(`/api/admin/v1/cameras/${id}`));
    });

    it('answers 401 without a token', async () => {
      await expectUnauthenticated(await server.request('/api/admin/v1/cameras/1', { token: false }));
    });
  });

  describe('POST /api/v1/billing/cameras (deprecated)', () => {
    const postV1 = (fields: Record<string, unknown>, token?: false) =>
      server.request('/api/v1/billing/cameras', { body: body(fields), ...(token === false ? { token } : {}) });

    const expectLifecycleHeaders = (response: Response) => {
      expect(response.headers.get('deprecation')).toBe(DEPRECATION);
      expect(response.headers.get('sunset')).toBe(SUNSET);
    };

    it('answers 201 with Deprecation and Sunset, and applies the flat archive setting to both types', async () => {
      const response = await postV1({ is_archive_enabled: true, archive_storage_days: 21 });
      expect(response.status).toBe(201);
      expectLifecycleHeaders(response);
      const created = await readJson(response);
      expect(Object.keys(created).sort()).toEqual(CREATED_FIELDS);
      expect(created).toMatchObject({ status: '', is_archive_recording: true, archive_storage_days: 21 });
      expect((await getCamera(server, created.id)).archive_settings).toEqual([
        { type: 'high', is_archive_enabled: true, archive_storage_days: 21 },
        { type: 'low', is_archive_enabled: true, archive_storage_days: 21 },
      ]);
    });

    it('answers 422 with the headers for a bad body', async () => {
      const response = await postV1({ is_archive_enabled: true, archive_storage_days: 91 });
      expectLifecycleHeaders(response);
      await expectValidationError(response, ['archive_storage_days']);
    });

    it('answers 401 without a token', async () => {
      await expectUnauthenticated(await postV1({}, false));
    });

    it('works until the sunset and answers 410 Gone from then on, still with the headers', async () => {
      const saved = clock.now();
      try {
        clock.set(new Date(SUNSET_DATE.getTime() - 1000));
        expect((await postV1({})).status).toBe(201);
        clock.set(SUNSET_DATE);
        const before = await cameraCount(server);
        const gone = await postV1({ is_archive_enabled: false });
        expectLifecycleHeaders(gone);
        expect(gone.status).toBe(410);
        expect(await readJson(gone)).toEqual({ message: expect.any(String), code: 'gone' });
        clock.advance(365 * 24 * 3600 * 1000);
        expect((await postV1({})).status).toBe(410);
        expect(await cameraCount(server)).toBe(before);
        // v2 is unaffected by the sunset of v1.
        expect((await postCameraV2(server, body())).status).toBe(201);
      } finally {
        clock.set(saved);
      }
    });
  });
});
