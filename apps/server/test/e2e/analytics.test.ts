import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectNotFound,
  expectStatus,
  expectUnauthenticated,
  expectValidationError,
  readJson,
  type Json,
} from '../support/fixtures';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

const CASE_FIELDS = ['camera_id', 'created_at', 'id', 'kind', 'status', 'updated_at'];
const cases = (camera: number | string) => `/api/admin/v1/cameras/${camera}/analytic-cases`;
const oneCase = (camera: number | string, id: number | string) => `${cases(camera)}/${id}`;
const stopPath = (camera: number | string, id: number | string, slash = '/') => `${oneCase(camera, id)}/stop${slash}`;
const restartPath = (camera: number | string, id: number | string, slash = '/') => `${oneCase(camera, id)}/restart${slash}`;

describe.each(databaseKinds(process.env.DATABASE_URL))('analytics cases on %s', (kind) => {
  let server: TestServer;
  let camera: Json;
  let otherCamera: Json;

  beforeAll(async () => {
    server = await startTestServer(kind);
    camera = await createCamera(server);
    otherCamera = await createCamera(server);
  });
  afterAll(() => server?.stop());

  const createCase = async (cameraId = camera.id): Promise<Json> =>
    expectStatus(await server.request(cases(cameraId), { body: { kind: 'motion_detection' } }), 201);
  const post = (path: string, body: unknown = {}) => server.request(path, { method: 'POST', body });
  const statusOf = async (id: number) => (await expectStatus(await server.request(oneCase(camera.id, id)), 200)).status;

  /** A case of `camera` that has been stopped. */
  async function stoppedCase(): Promise<Json> {
    const created = await createCase();
    expect((await expectStatus(await post(stopPath(camera.id, created.id)), 200)).status).toBe('STOPPED');
    return created;
  }

  describe('create and get', () => {
    it('POST answers 201 with a CREATED case of the camera', async () => {
      const response = await server.request(cases(camera.id), { body: { kind: 'motion_detection' } });
      expect(response.status).toBe(201);
      const created = await readJson(response);
      expect(Object.keys(created).sort()).toEqual(CASE_FIELDS);
      expect(created).toMatchObject({ camera_id: camera.id, kind: 'motion_detection', status: 'CREATED' });
      expect(Number.isInteger(created.id)).toBe(true);
    });

    it('POST refuses an unknown kind (422 errors.kind) and answers 404 for an unknown camera', async () => {
      await expectValidationError(await server.request(cases(camera.id), { body: { kind: 'face_recognition' } }), ['kind']);
      await expectNotFound(await server.request(cases(2_000_000_000), { body: { kind: 'motion_detection' } }));
    });

    it('GET answers 200 with the case', async () => {
      const created = await createCase();
      expect(await expectStatus(await server.request(oneCase(camera.id, created.id)), 200)).toEqual(created);
    });

    it('GET answers 404 for an unknown case, an unknown camera and a case of another camera', async () => {
      const created = await createCase();
      await expectNotFound(await server.request(oneCase(camera.id, 2_000_000_000)));
      await expectNotFound(await server.request(oneCase(2_000_000_000, created.id)));
      await expectNotFound(await server.request(oneCase(otherCamera.id, created.id)));
      await expectNotFound(await server.request(oneCase(camera.id, 'abc')));
    });
  });

  describe('stop', () => {
    it('answers 200 with the case, now STOPPED, and stays 200 when stopped again', async () => {
      const created = await createCase();
      const stopped = await expectStatus(await post(stopPath(camera.id, created.id)), 200);
      expect(stopped).toMatchObject({ id: created.id, camera_id: camera.id, status: 'STOPPED' });
      expect(await statusOf(created.id)).toBe('STOPPED');
      expect((await expectStatus(await post(stopPath(camera.id, created.id, ''), {}), 200)).status).toBe('STOPPED');
    });

    it('answers 404 for a case of another camera and leaves it alone', async () => {
      const created = await createCase();
      await expectNotFound(await post(stopPath(otherCamera.id, created.id)));
      expect(await statusOf(created.id)).toBe('CREATED');
    });
  });

  describe('POST .../analytic-cases/{analytic_case_camera}/restart/', () => {
    it.each([
      ['with', '/'],
      ['without', ''],
    ])('restarts a STOPPED case %s the trailing slash: 200 with the case, now PENDING', async (_, slash) => {
      const created = await stoppedCase();
      const response = await post(restartPath(camera.id, created.id, slash));
      expect(response.status).toBe(200);
      const restarted = await readJson(response);
      expect(Object.keys(restarted).sort()).toEqual(CASE_FIELDS);
      expect(restarted).toMatchObject({ id: created.id, camera_id: camera.id, kind: 'motion_detection', status: 'PENDING' });
      expect(await statusOf(created.id)).toBe('PENDING');
    });

    it('accepts a body that repeats the path parameters as integers', async () => {
      const created = await stoppedCase();
      const response = await post(restartPath(camera.id, created.id), { camera: camera.id, analytic_case_camera: created.id });
      expect((await expectStatus(response, 200)).status).toBe('PENDING');
    });

    it('accepts no body at all', async () => {
      const created = await stoppedCase();
      const response = await server.request(restartPath(camera.id, created.id), { method: 'POST' });
      expect((await expectStatus(response, 200)).status).toBe('PENDING');
    });

    it('lets exactly one of concurrent restarts win; the others get 422 errors.status', async () => {
      const created = await stoppedCase();
      const responses = await Promise.all([0, 1, 2, 3].map(() => post(restartPath(camera.id, created.id))));
      expect(responses.map((response) => response.status).sort()).toEqual([200, 422, 422, 422]);
      for (const response of responses.filter((r) => r.status === 422)) await expectValidationError(response, ['status']);
      expect(await statusOf(created.id)).toBe('PENDING');
    });

    it('refuses a CREATED case (422 errors.status) and leaves it CREATED', async () => {
      const created = await createCase();
      await expectValidationError(await post(restartPath(camera.id, created.id)), ['status']);
      expect(await statusOf(created.id)).toBe('CREATED');
    });

    it('refuses a case already restarted, now PENDING (422 errors.status)', async () => {
      const created = await stoppedCase();
      expect((await expectStatus(await post(restartPath(camera.id, created.id)), 200)).status).toBe('PENDING');
      await expectValidationError(await post(restartPath(camera.id, created.id)), ['status']);
      await expectValidationError(await post(restartPath(camera.id, created.id, '')), ['status']);
      expect(await statusOf(created.id)).toBe('PENDING');
    });

    it.each([
      ['camera', (c: Json) => ({ camera: otherCamera.id, analytic_case_camera: c.id })],
      ['analytic_case_camera', (c: Json) => ({ camera: camera.id, analytic_case_camera: c.id + 1000 })],
      ['camera', () => ({ camera: 'one' })],
    ])('refuses a body whose %s disagrees with the path (422) and restarts nothing', async (field, makeBody) => {
      const created = await stoppedCase();
      await expectValidationError(await post(restartPath(camera.id, created.id), makeBody(created)), [field]);
      expect(await statusOf(created.id)).toBe('STOPPED');
    });

    it('answers 404 for an unknown camera, an unknown case and a case of another camera', async () => {
      const created = await stoppedCase();
      await expectNotFound(await post(restartPath(2_000_000_000, created.id)));
      await expectNotFound(await post(restartPath(camera.id, 2_000_000_000)));
      await expectNotFound(await post(restartPath(otherCamera.id, created.id)));
      await expectNotFound(await post(restartPath('abc', created.id)));
      expect(await statusOf(created.id)).toBe('STOPPED');
    });

    it('answers 401 without a token, or with a bad one, and restarts nothing', async () => {
      const created = await stoppedCase();
      await expectUnauthenticated(await server.request(restartPath(camera.id, created.id), { body: {}, token: false }));
      await expectUnauthenticated(await server.request(restartPath(camera.id, created.id, ''), { body: {}, token: 'bogus' }));
      expect(await statusOf(created.id)).toBe('STOPPED');
    });
  });

  it.each([
    ['create', 'POST', () => cases(camera.id), { kind: 'motion_detection' }],
    ['get', 'GET', () => oneCase(camera.id, 1), undefined],
    ['stop', 'POST', () => stopPath(camera.id, 1), {}],
  ])('%s answers 401 without a token', async (_, method, path, body) => {
    await expectUnauthenticated(await server.request(path(), { method, body, token: false }));
  });
});
