import { builtInIntercomDrivers } from '@vss/core';
import {
  closedPort,
  startFakeBewardIntercom,
  startFakeDahuaIntercom,
  startFakeHikvisionIntercom,
  startFakeOnvifDevice,
  type FakeHikvisionBehaviour,
  type FakeHikvisionIntercom,
} from '@vss/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  expectError,
  expectNotFound,
  expectStatus,
  expectUnauthenticated,
  expectValidationError,
  logText,
  readJson,
  uniqueName,
  type Json,
} from '../support/fixtures';
import { databaseKinds, startTestServer, type TestServer } from '../support/server';

const INTERCOMS = '/api/admin/v1/intercoms';
const restartPath = (id: number | string) => `${INTERCOMS}/${id}/restart-intercom`;
const INTERCOM_FIELDS = ['created_at', 'host', 'id', 'last_restart_at', 'login', 'name', 'port', 'vendor'];


describe.each(databaseKinds(process.env.DATABASE_URL))('intercoms on %s', (kind) => {
  const login = 'admin';
  const password = uniqueName('device-secret');
  let server: TestServer;
  let device: FakeHikvisionIntercom;
  /** The intercom registered with the device's own credentials. */
  let intercom: Json;

  beforeAll(async () => {
    device = await startFakeHikvisionIntercom({ login, password });
    server = await startTestServer(kind, { intercomDrivers: builtInIntercomDrivers({ timeoutMs: 500 }) });
    intercom = await createIntercom({ name: 'Entrance' });
  });
  afterAll(async () => {
    await server?.stop();
    await device?.close();
  });
  afterEach(() => device.setBehaviour('ok'));

  async function createIntercom(fields: Record<string, unknown> = {}): Promise<Json> {
    const body = { name: 'Intercom', vendor: 'hikvision', host: device.host, port: device.port, login, password, ...fields };
    return expectStatus(await server.request(INTERCOMS, { body }), 201);
  }

  const restart = (id: number | string, body: unknown = { intercom: id }) => server.request(restartPath(id), { method: 'POST', body });

  /** Restarts `id` with the device behaving as told; the device must count no reboot. */
  async function failedRestart(behaviour: FakeHikvisionBehaviour, id = intercom.id) {
    device.setBehaviour(behaviour);
    const before = device.rebootCount();
    const response = await restart(id);
    expect(device.rebootCount()).toBe(before);
    return response;
  }

  describe('POST /api/admin/v1/intercoms', () => {
    it('answers 201 without the password anywhere', async () => {
      const response = await server.request(INTERCOMS, {
        body: { name: 'Gate', vendor: 'hikvision', host: device.host, port: device.port, login, password },
      });
      const text = await response.text();
      expect(response.status).toBe(201);
      expect(text).not.toContain(password);
      const created = JSON.parse(text);
      expect(Object.keys(created).sort()).toEqual(INTERCOM_FIELDS);
      expect(created).toMatchObject({
        name: 'Gate',
        vendor: 'hikvision',
        host: device.host,
        port: device.port,
        login,
        last_restart_at: null,
      });
    });

    it.each([
      ['a vendor VSS has no driver for', { vendor: 'axis' }, 'vendor'],
      ['a missing vendor', { vendor: undefined }, 'vendor'],
      ['port 0', { port: 0 }, 'port'],
      ['port 65536', { port: 65536 }, 'port'],
      ['a host with a path', { host: 'evil.example/x?' }, 'host'],
      ['a host with credentials', { host: 'user:pw@10.0.0.1' }, 'host'],
      ['a missing login', { login: undefined }, 'login'],
      ['a missing password', { password: undefined }, 'password'],
    ])('refuses %s (422) and creates nothing', async (_, fields, field) => {
      const before = (await expectStatus(await server.request(INTERCOMS), 200)).length;
      const body = { name: 'Bad', vendor: 'hikvision', host: '192.0.2.5', port: 80, login, password, ...fields };
      await expectValidationError(await server.request(INTERCOMS, { body }), [field]);
      expect((await expectStatus(await server.request(INTERCOMS), 200)).length).toBe(before);
    });

    it('accepts the port limits 1 and 65535', async () => {
      expect((await createIntercom({ port: 1 })).port).toBe(1);
      expect((await createIntercom({ port: 65535 })).port).toBe(65535);
    });
  });

  describe('GET', () => {
    it('lists intercoms without passwords', async () => {
      const response = await server.request(INTERCOMS);
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).not.toContain(password);
      const list = JSON.parse(text);
      expect(list.map((entry: Json) => entry.id)).toContain(intercom.id);
      for (const entry of list) expect(Object.keys(entry).sort()).toEqual(INTERCOM_FIELDS);
    });

    it('shows one intercom', async () => {
      const response = await server.request(`${INTERCOMS}/${intercom.id}`);
      expect(response.status).toBe(200);
      const shown = await readJson(response);
      expect({ ...shown, last_restart_at: null }).toEqual({ ...intercom, last_restart_at: null });
    });

    it.each(['2000000000', 'abc', '0'])('answers 404 for %s', async (id) => {
      await expectNotFound(await server.request(`${INTERCOMS}/${id}`));
    });
  });

  describe('POST /api/admin/v1/intercoms/{intercom}/restart-intercom', () => {
    it('answers 204 once the device accepted, and the device counted one reboot', async () => {
      const before = device.rebootCount();
      const response = await restart(intercom.id);
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect(device.rebootCount()).toBe(before + 1);
      const shown = await expectStatus(await server.request(`${INTERCOMS}/${intercom.id}`), 200);
      expect(shown.last_restart_at).toEqual(expect.any(String));
    });

    it.each([
      ['dahua', startFakeDahuaIntercom],
      ['beward', startFakeBewardIntercom],
      ['onvif', startFakeOnvifDevice],
    ] as const)('reboots a %s intercom through its own driver', async (vendor, start) => {
      const other = await start({ login, password });
      try {
        const created = await createIntercom({ vendor, host: other.host, port: other.port });
        expect((await restart(created.id)).status).toBe(204);
        expect(other.rebootCount()).toBe(1);
      } finally {
        await other.close();
      }
    });

    it('accepts no body at all', async () => {
      const before = device.rebootCount();
      const response = await server.request(restartPath(intercom.id), { method: 'POST' });
      expect(response.status).toBe(204);
      expect(device.rebootCount()).toBe(before + 1);
    });

    it('refuses a body naming another intercom (422) and reboots nothing', async () => {
      const before = device.rebootCount();
      await expectValidationError(await restart(intercom.id, { intercom: intercom.id + 1 }), ['intercom']);
      expect(device.rebootCount()).toBe(before);
    });

    it('answers 502 when the device rejects the password', async () => {
      const wrong = await createIntercom({ password: 'not-the-password' });
      const before = device.rebootCount();
      await expectError(await restart(wrong.id), 502, 'device_error');
      expect(device.rebootCount()).toBe(before);
    });

    it('answers 502 when the device refuses the reboot', async () => {
      await expectError(await failedRestart('refuse'), 502, 'device_error');
    });

    it.each(['garbage', 'fail-status', 'huge'] as const)('answers 502 when the device answers %s', async (behaviour) => {
      await expectError(await failedRestart(behaviour), 502, 'device_error');
    });

    it('answers 502 when nothing listens at the address', async () => {
      const unreachable = await createIntercom({ port: await closedPort() });
      await expectError(await restart(unreachable.id), 502, 'device_error');
    });

    it('answers 504 when the device does not answer in time', async () => {
      await expectError(await failedRestart('hang'), 504, 'device_timeout');
    });

    it.each(['2000000000', 'abc'])('answers 404 for the unknown intercom %s', async (id) => {
      const before = device.rebootCount();
      await expectNotFound(await server.request(restartPath(id), { method: 'POST', body: {} }));
      expect(device.rebootCount()).toBe(before);
    });

    it('answers 401 without a token, or with a bad one, and reboots nothing', async () => {
      const before = device.rebootCount();
      await expectUnauthenticated(await server.request(restartPath(intercom.id), { body: {}, token: false }));
      await expectUnauthenticated(await server.request(restartPath(intercom.id), { body: {}, token: 'bogus' }));
      expect(device.rebootCount()).toBe(before);
    });

    it('never writes a device password to the log, whether the restart worked or not', async () => {
      const wrongPassword = uniqueName('wrong-secret');
      const wrong = await createIntercom({ password: wrongPassword });
      expect((await restart(wrong.id)).status).toBe(502);
      expect((await failedRestart('refuse')).status).toBe(502);
      device.setBehaviour('ok');
      expect((await restart(intercom.id)).status).toBe(204);
      expect(server.logs.filter((line) => line.msg === 'intercom restart failed').length).toBeGreaterThanOrEqual(2);
      for (const secret of [password, wrongPassword]) expect(logText(server)).not.toContain(secret);
    });
  });

  it.each([
    ['create', 'POST', INTERCOMS, { name: 'x' }],
    ['list', 'GET', INTERCOMS, undefined],
    ['get', 'GET', `${INTERCOMS}/1`, undefined],
  ])('%s answers 401 without a token', async (_, method, path, body) => {
    await expectUnauthenticated(await server.request(path, { method, body, token: false }));
  });
});
