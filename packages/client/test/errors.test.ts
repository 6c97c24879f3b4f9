import { hikvisionIntercom } from '@vss/core';
import { startFakeHikvisionIntercom, type FakeHikvisionIntercom } from '@vss/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  createClient,
  DeviceError,
  ForbiddenError,
  GoneError,
  isVssClientError,
  JsonRpcError,
  NotFoundError,
  ResponseValidationError,
  ServerError,
  UnauthorizedError,
  ValidationError,
  VssClientError,
  type VssClient,
} from '../src';
import { closedPort, rejection, startPlainServer, startTestServer, uniqueMac, type TestServer } from './support';

// v1 was retired six months after this date, and a hung device gives up after 300 ms: the server
// is configured so that every error the SDK knows is reachable over HTTP.
const V2_RELEASE = '2020-01-01';
const DRIVER_TIMEOUT_MS = 300;

describe('@vss/client errors against the real server', () => {
  let server: TestServer;
  let client: VssClient;
  let groupId: number;

  beforeAll(async () => {
    server = await startTestServer('pglite', {
      env: { VSS_V2_RELEASE_DATE: V2_RELEASE },
      intercomDrivers: { hikvision: hikvisionIntercom({ timeoutMs: DRIVER_TIMEOUT_MS }) },
    });
    client = createClient({ baseUrl: server.url, token: server.token });
    groupId = (await client.treeElements.create({ name: 'Errors' })).id;
  });
  afterAll(() => server?.stop());

  it('ValidationError: 422 with the errors map of a bad camera', async () => {
    const error = await rejection(
      client.cameras.create({
        name: 'Bad',
        mac: 'not-a-mac',
        group_id: groupId,
        streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 500 }],
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(VssClientError);
    const validation = error as ValidationError;
    expect(validation.code).toBe('validation_failed');
    expect(validation.status).toBe(422);
    expect(Object.keys(validation.errors)).toEqual(expect.arrayContaining(['mac', 'streams.0.archive_storage_days']));
    expect(validation.message).toMatch(/more error/);
    expect(validation.operation).toBe('createCameraV2');
  });

  it('UnauthorizedError: 401 with a wrong token and with none', async () => {
    for (const token of ['not-a-real-token', undefined]) {
      const stranger = createClient({ baseUrl: server.url, ...(token ? { token } : {}) });
      for (const call of [stranger.treeElements.list(), stranger.streams.restart('any-uid')]) {
        const error = await rejection(call);
        expect(error).toBeInstanceOf(UnauthorizedError);
        expect(error).toMatchObject({ code: 'unauthenticated', status: 401, message: 'Unauthenticated.' });
      }
    }
  });

  it('ForbiddenError: 403 when an API token is asked for through a forwarding proxy', async () => {
    const viaProxy: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      request.headers.set('X-Forwarded-For', '203.0.113.7');
      return fetch(request);
    };
    const error = await rejection(
      createClient({ baseUrl: server.url, fetch: viaProxy }).auth.issueApiToken({ client: 'outsider', duration: 0 }),
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ code: 'forbidden', status: 403, serverCode: 'forbidden' });
  });

  it('NotFoundError: 404 for unknown ids and uids', async () => {
    for (const call of [client.cameras.get(987_654), client.streams.get('no-such-stream'), client.intercoms.restart(55_555)]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ code: 'not_found', status: 404, serverCode: 'not_found' });
    }
  });

  it('GoneError: 410 from camera creation v1 after its sunset, with the Sunset date', async () => {
    const error = await rejection(client.cameras.createV1({ name: 'Too late', mac: uniqueMac(), group_id: groupId }));
    expect(error).toBeInstanceOf(GoneError);
    const gone = error as GoneError;
    expect(gone).toMatchObject({ code: 'gone', status: 410 });
    expect(gone.sunset).toEqual(new Date('2020-07-01T00:00:00Z'));
  });

  it('JsonRpcError: an unknown stream uid is -32602 with the uid in data, an unknown method -32601', async () => {
    const error = await rejection(client.streams.restart(['no-such-uid']));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({
      code: 'jsonrpc_error',
      rpcCode: -32602,
      status: 400,
      data: { unknown_uids: ['no-such-uid'] },
    });

    const unknownMethod = await rejection(client.rpc.call('Camera.Explode'));
    expect(unknownMethod).toMatchObject({ code: 'jsonrpc_error', rpcCode: -32601, message: 'Method not found' });
  });

  describe('DeviceError', () => {
    let device: FakeHikvisionIntercom;
    beforeAll(async () => {
      device = await startFakeHikvisionIntercom({ login: 'admin', password: 'right-password' });
    });
    afterAll(() => device?.close());

    const register = (password: string) =>
      client.intercoms.create({ name: 'Gate', vendor: 'hikvision', host: device.host, port: device.port, login: 'admin', password });

    it('502 when the device refuses the credentials', async () => {
      device.setBehaviour('ok');
      const intercom = await register('wrong-password');
      const error = await rejection(client.intercoms.restart(intercom.id));
      expect(error).toBeInstanceOf(DeviceError);
      expect(error).toMatchObject({ code: 'device_error', status: 502, timeout: false, serverCode: 'device_error' });
      expect(device.rebootCount()).toBe(0);
    });

    it('504 with timeout: true when the device hangs past the driver timeout', async () => {
      device.setBehaviour('hang');
      const intercom = await register('right-password');
      const error = await rejection(client.intercoms.restart(intercom.id));
      expect(error).toBeInstanceOf(DeviceError);
      expect(error).toMatchObject({ code: 'device_error', status: 504, timeout: true, serverCode: 'device_timeout' });
    });

    it('ConnectionError with timeout: true when the client gives up before the server answers', async () => {
      device.setBehaviour('hang');
      const intercom = await register('right-password');
      const impatient = createClient({ baseUrl: server.url, token: server.token, timeout: DRIVER_TIMEOUT_MS / 3 });
      const error = await rejection(impatient.intercoms.restart(intercom.id));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ code: 'connection_error', timeout: true, status: undefined });
    });
  });

  it('ServerError: a 500 is not retried, even for a GET', async () => {
    let requests = 0;
    // The real server answers 500 only on a bug, so a stand-in gives the plain-text 500 it would send.
    const broken = await startPlainServer((_req, res) => {
      requests++;
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
    });
    try {
      const error = await rejection(createClient({ baseUrl: broken.url, retry: { backoffMs: 1 } }).system.health());
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ code: 'server_error', status: 500, body: 'Internal Server Error' });
      expect(requests).toBe(1);
    } finally {
      await broken.close();
    }
  });

  it('ConnectionError: nothing listening on the port', async () => {
    const port = await closedPort();
    const error = await rejection(createClient({ baseUrl: `http://127.0.0.1:${port}`, retry: { limit: 0 } }).system.health());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'connection_error', timeout: false, status: undefined, operation: 'health' });
    expect((error as Error).cause).toBeDefined();
  });

  describe('retries', () => {
    /** A fetch that fails like a dropped connection `failures` times, then reaches the server. */
    function flakyFetch(failures: number) {
      const attempts: number[] = [];
      const flaky: typeof fetch = (input, init) => {
        attempts.push(Date.now());
        if (attempts.length <= failures) return Promise.reject(new TypeError('fetch failed'));
        return fetch(input, init);
      };
      return { attempts, fetch: flaky };
    }

    it('retries a GET after connection errors, with growing backoff', async () => {
      const flaky = flakyFetch(2);
      const patient = createClient({ baseUrl: server.url, token: server.token, fetch: flaky.fetch, retry: { limit: 2, backoffMs: 40 } });
      expect(await patient.treeElements.get(groupId)).toMatchObject({ id: groupId });
      expect(flaky.attempts).toHaveLength(3);
      const [first, second, third] = flaky.attempts as [number, number, number];
      expect(second - first).toBeGreaterThanOrEqual(35);
      expect(third - second).toBeGreaterThanOrEqual(75);
    });

    it('gives up after the limit with a ConnectionError', async () => {
      const flaky = flakyFetch(Infinity);
      const error = await rejection(
        createClient({ baseUrl: server.url, fetch: flaky.fetch, retry: { limit: 3, backoffMs: 1 } }).system.health(),
      );
      expect(error).toMatchObject({ code: 'connection_error' });
      expect(flaky.attempts).toHaveLength(4);
    });

    it('never retries a POST', async () => {
      const flaky = flakyFetch(1);
      const once = createClient({ baseUrl: server.url, token: server.token, fetch: flaky.fetch, retry: { limit: 5, backoffMs: 1 } });
      const error = await rejection(once.treeElements.create({ name: 'Only once' }));
      expect(error).toMatchObject({ code: 'connection_error' });
      expect(flaky.attempts).toHaveLength(1);
      const names = (await client.treeElements.list()).map((element) => element.name);
      expect(names).not.toContain('Only once');
    });
  });

  describe('ResponseValidationError', () => {
    /** Passes requests to the real server and hands back its body with `id` turned into a string. */
    const tampering: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, id: String(body.id) }), {
        status: response.status,
        headers: { 'content-type': 'application/json' },
      });
    };

    it('is thrown when a response breaks the contract', async () => {
      const strict = createClient({ baseUrl: server.url, token: server.token, fetch: tampering });
      const error = await rejection(strict.treeElements.get(groupId));
      expect(error).toBeInstanceOf(ResponseValidationError);
      const invalid = error as ResponseValidationError;
      expect(invalid).toMatchObject({ code: 'response_validation_failed', status: 200, operation: 'getTreeElement' });
      expect(invalid.issues.map((issue) => issue.path)).toEqual([['id']]);
      expect(invalid.body).toMatchObject({ id: String(groupId) });
    });

    it('is not thrown with validateResponses: false, which hands back the body as sent', async () => {
      const lenient = createClient({ baseUrl: server.url, token: server.token, fetch: tampering, validateResponses: false });
      expect(await lenient.treeElements.get(groupId)).toMatchObject({ id: String(groupId), name: 'Errors' });
    });
  });

  it('codes let callers branch without instanceof', async () => {
    const error = await rejection(client.cameras.get(123_456));
    expect(isVssClientError(error)).toBe(true);
    expect(isVssClientError(new Error('plain'))).toBe(false);
    if (!isVssClientError(error)) throw error;
    switch (error.code) {
      case 'not_found':
        expect(error.status).toBe(404);
        break;
      default:
        throw new Error(`unexpected ${error.code}`);
    }
  });
});
