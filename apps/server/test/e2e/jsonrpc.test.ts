import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

/** A camera with a high and a low stream, as Stream.Restart sees it. */
interface Cam {
  id: number;
  uuid: string;
  high: string;
  low: string;
}

interface Fixture {
  a: Cam;
  b: Cam;
}

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  json: unknown;
}

const ok = (id: unknown) => ({ jsonrpc: '2.0', result: 'OK', id });
const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id });
const invalidRequest = (id: unknown = null) => rpcError(id, -32600, 'Invalid Request');
const methodNotFound = (id: unknown) => rpcError(id, -32601, 'Method not found');
const parseError = () => rpcError(null, -32700, 'Parse error');

/** An invalid-params response; `data` is matched as given (asymmetric matchers welcome). */
const invalidParams = (id: unknown, data: unknown) => ({
  jsonrpc: '2.0',
  error: { code: -32602, message: 'Invalid params', data },
  id,
});

const call = (method: string, params: unknown, id?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), ...(id === undefined ? {} : { id }) });
const restart = (params: unknown, id?: unknown) => call('Stream.Restart', params, id);

/**
 * Every example of section 7 of the JSON-RPC 2.0 specification, adapted to Stream.Restart:
 * positional params are the array form `[uid, ...]`, named params the object form
 * `{camera_uuid: [uid, ...]}`. `response: null` means no content at all (204, empty body).
 */
interface Example {
  name: string;
  request: (f: Fixture) => string;
  status: number;
  response: ((f: Fixture) => unknown) | null;
}

const examples: Example[] = [
  {
    name: 'rpc call with positional parameters',
    request: (f) => restart([f.a.high, f.a.low], 1),
    status: 200,
    response: () => ok(1),
  },
  {
    name: 'rpc call with positional parameters (second example)',
    request: (f) => restart([f.a.low, f.a.high], 2),
    status: 200,
    response: () => ok(2),
  },
  {
    name: 'rpc call with named parameters',
    request: (f) => restart({ [f.a.uuid]: [f.a.high] }, 3),
    status: 200,
    response: () => ok(3),
  },
  {
    name: 'rpc call with named parameters (second example, keys in another order)',
    request: (f) => restart({ [f.b.uuid]: [f.b.low, f.b.high], [f.a.uuid]: [f.a.low] }, 4),
    status: 200,
    response: () => ok(4),
  },
  {
    name: 'a notification',
    request: (f) => restart([f.a.high, f.a.low]),
    status: 204,
    response: null,
  },
  {
    name: 'a notification of a method without params',
    request: () => JSON.stringify({ jsonrpc: '2.0', method: 'foobar' }),
    status: 204,
    response: null,
  },
  {
    name: 'rpc call of non-existent method',
    request: () => JSON.stringify({ jsonrpc: '2.0', method: 'foobar', id: '1' }),
    status: 400,
    response: () => methodNotFound('1'),
  },
  {
    name: 'rpc call with invalid JSON',
    request: () => '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
    status: 400,
    response: () => parseError(),
  },
  {
    name: 'rpc call with invalid Request object',
    request: () => '{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
    status: 400,
    response: () => invalidRequest(),
  },
  {
    name: 'rpc call Batch, invalid JSON',
    request: (f) => `[
      {"jsonrpc": "2.0", "method": "Stream.Restart", "params": ${JSON.stringify([f.a.high])}, "id": "1"},
      {"jsonrpc": "2.0", "method"
    ]`,
    status: 400,
    response: () => parseError(),
  },
  {
    name: 'rpc call with an empty Array',
    request: () => '[]',
    status: 400,
    response: () => invalidRequest(),
  },
  {
    name: 'rpc call with an invalid Batch (but not empty)',
    request: () => '[1]',
    status: 200,
    response: () => [invalidRequest()],
  },
  {
    name: 'rpc call with invalid Batch',
    request: () => '[1,2,3]',
    status: 200,
    response: () => [invalidRequest(), invalidRequest(), invalidRequest()],
  },
  {
    name: 'rpc call Batch',
    request: (f) => `[
      ${restart([f.a.high, f.a.low], '1')},
      ${restart([f.b.high])},
      ${restart({ [f.b.uuid]: [f.b.high, f.b.low] }, '2')},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      ${restart(f.a.low, '9')}
    ]`,
    status: 200,
    response: () => [ok('1'), ok('2'), invalidRequest(), methodNotFound('5'), ok('9')],
  },
  {
    name: 'rpc call Batch (all notifications)',
    request: (f) => `[${restart([f.a.high, f.a.low])}, ${restart({ [f.b.uuid]: [f.b.low] })}]`,
    status: 204,
    response: null,
  },
];

describe.each(databaseKinds(process.env.DATABASE_URL))('JSON-RPC 2.0 at POST /api/ on %s', (kind) => {
  let server: TestServer;
  let fixture: Fixture;

  async function rpc(text: string, init: { token?: string | false; path?: string } = {}): Promise<Answer> {
    const response = await server.request(init.path ?? '/api/', {
      method: 'POST',
      body: text,
      ...(init.token === undefined ? {} : { token: init.token }),
    });
    const body = await response.text();
    let json: unknown;
    try {
      json = body === '' ? undefined : JSON.parse(body);
    } catch {
      json = undefined;
    }
    return { status: response.status, contentType: response.headers.get('content-type'), text: body, json };
  }

  async function stream(uid: string) {
    const response = await server.request(`/api/admin/v1/streams/${uid}`);
    expect(response.status).toBe(200);
    return (await response.json()) as {
      uid: string;
      reconnection: { attempts: number; total: number; last_error: string | null; reset_at: string | null };
    };
  }

  async function expectUntouched(...uids: string[]) {
    for (const uid of uids) expect((await stream(uid)).reconnection.reset_at, uid).toBeNull();
  }

  async function cameraWithStreams(): Promise<Cam> {
    const camera = (await createCamera(server)) as { id: number; uuid: string };
    const uids: string[] = [];
    for (const type of ['high', 'low']) {
      const created = await server.request(`/api/admin/v1/cameras/${camera.id}/streams`, {
        body: { type, url: `rtsp://192.0.2.10/${type}` },
      });
      expect(created.status).toBe(201);
      uids.push(((await created.json()) as { uid: string }).uid);
    }
    return { id: camera.id, uuid: camera.uuid, high: uids[0]!, low: uids[1]! };
  }

  beforeAll(async () => {
    server = await startTestServer(kind);
    fixture = { a: await cameraWithStreams(), b: await cameraWithStreams() };
  });
  afterAll(() => server?.stop());

  describe('the examples of the JSON-RPC 2.0 specification', () => {
    it.each(examples)('$name', async ({ request, status, response }) => {
      const answer = await rpc(request(fixture));
      expect(answer.status).toBe(status);
      if (response === null) {
        expect(answer.text).toBe('');
      } else {
        expect(answer.contentType).toMatch(/^application\/json/);
        expect(answer.json).toStrictEqual(response(fixture));
      }
    });
  });

  describe('Stream.Restart', () => {
    it('accepts the plain-string params form (one uid) and restarts that stream only', async () => {
      const c = await cameraWithStreams();
      const answer = await rpc(restart(c.high, 11));
      expect(answer.status).toBe(200);
      expect(answer.json).toStrictEqual(ok(11));
      expect((await stream(c.high)).reconnection.reset_at).not.toBeNull();
      await expectUntouched(c.low);
    });

    it('resets the reconnection data of every named stream', async () => {
      const c = await cameraWithStreams();
      await expectUntouched(c.high, c.low);
      const answer = await rpc(restart({ [c.uuid]: [c.high, c.low] }, 12));
      expect(answer.json).toStrictEqual(ok(12));
      for (const uid of [c.high, c.low]) {
        const { reconnection } = await stream(uid);
        expect(reconnection.reset_at).not.toBeNull();
        expect(Number.isNaN(Date.parse(reconnection.reset_at!))).toBe(false);
        expect(reconnection.attempts).toBe(0);
        expect(reconnection.total).toBe(0);
        expect(reconnection.last_error).toBeNull();
      }
    });

    it('restarts a notification too, though it answers nothing', async () => {
      const c = await cameraWithStreams();
      const answer = await rpc(restart([c.low]));
      expect(answer.status).toBe(204);
      expect(answer.text).toBe('');
      expect((await stream(c.low)).reconnection.reset_at).not.toBeNull();
      await expectUntouched(c.high);
    });

    it('accepts the same uid twice', async () => {
      const answer = await rpc(restart([fixture.a.high, fixture.a.high], 13));
      expect(answer.json).toStrictEqual(ok(13));
    });

    it('matches camera uuids whatever their letter case', async () => {
      const answer = await rpc(restart({ [fixture.a.uuid.toUpperCase()]: [fixture.a.high] }, 14));
      expect(answer.json).toStrictEqual(ok(14));
    });

    it('refuses a uid under the wrong camera in the object form, naming it, and restarts nothing', async () => {
      const c = await cameraWithStreams();
      const d = await cameraWithStreams();
      const answer = await rpc(restart({ [c.uuid]: [c.high, d.low] }, 21));
      expect(answer.status).toBe(400);
      expect(answer.json).toStrictEqual(
        invalidParams(21, { message: expect.any(String), unknown_uids: [d.low] }),
      );
      await expectUntouched(c.high, c.low, d.high, d.low);
    });

    it('refuses an unknown camera uuid in the object form, naming it, and restarts nothing', async () => {
      const c = await cameraWithStreams();
      const stranger = randomUUID();
      const answer = await rpc(restart({ [c.uuid]: [c.high], [stranger]: [c.low] }, 22));
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject(invalidParams(22, { unknown_cameras: [stranger] }));
      // c.low exists, but not under the stranger camera.
      expect((answer.json as { error: { data: { unknown_uids: string[] } } }).error.data.unknown_uids).toEqual([c.low]);
      await expectUntouched(c.high, c.low);
    });

    it('refuses a camera key that only looks like a uuid as invalid params, not as a server error', async () => {
      const c = await cameraWithStreams();
      for (const key of ['-'.repeat(36), `${'0'.repeat(35)}-`, 'g'.repeat(36)]) {
        const answer = await rpc(restart({ [key]: [c.high] }, 23));
        expect(answer.status, key).toBe(400);
        expect(answer.json, key).toMatchObject(invalidParams(23, { unknown_cameras: [key] }));
      }
      await expectUntouched(c.high, c.low);
    });

    it('refuses __proto__ and constructor keys beside a real camera as unknown cameras, and restarts nothing', async () => {
      const c = await cameraWithStreams();
      for (const key of ['__proto__', 'constructor', 'toString']) {
        const text = `{"jsonrpc":"2.0","method":"Stream.Restart","id":26,"params":{${JSON.stringify(key)}:${JSON.stringify([c.low])},${JSON.stringify(c.uuid)}:${JSON.stringify([c.high])}}}`;
        const answer = await rpc(text);
        expect(answer.status, key).toBe(400);
        expect(answer.json, key).toMatchObject(invalidParams(26, { unknown_cameras: [key] }));
        await expectUntouched(c.high, c.low);
      }
    });

    it.each([
      ['an empty array', []],
      ['an object with an empty uid list', { [randomUUID()]: [] }],
      ['an empty object', {}],
      ['an object keyed __proto__', '{"__proto__": ["x"]}'],
      ['an empty string', ''],
      ['a uid with a space', ['bad uid']],
      ['a uid with a path', '../etc/passwd'],
      ['a uid with unicode', ['камера']],
      ['a number in the array', [1]],
      ['null in the array', [null]],
      ['an object whose value is a string', { [randomUUID()]: 'abc' }],
      ['no params at all', undefined],
    ])('refuses %s as params with -32602 and restarts nothing', async (_name, params) => {
      const c = await cameraWithStreams();
      const text =
        typeof params === 'string' && params.startsWith('{')
          ? `{"jsonrpc":"2.0","method":"Stream.Restart","params":${params.replace('"x"', JSON.stringify(c.high))},"id":24}`
          : restart(params, 24);
      const answer = await rpc(text);
      expect(answer.status).toBe(400);
      expect(answer.json).toStrictEqual(invalidParams(24, expect.objectContaining({ message: expect.any(String) })));
      await expectUntouched(c.high, c.low);
    });

    it('refuses a batch-free uid list with an unknown uid anywhere, listing it, and restarts nothing', async () => {
      const c = await cameraWithStreams();
      for (const [params, unknown] of [
        [['nope-first', c.high, c.low], ['nope-first']],
        [[c.high, 'nope-middle', c.low], ['nope-middle']],
        [[c.high, c.low, 'nope-last'], ['nope-last']],
        [{ [c.uuid]: [c.high, c.low, 'nope-object'] }, ['nope-object']],
        [[c.high, 'nope-1', 'nope-2'], ['nope-1', 'nope-2']],
      ] as const) {
        const answer = await rpc(restart(params, 25));
        expect(answer.status).toBe(400);
        expect(answer.json).toStrictEqual(
          invalidParams(25, { message: expect.any(String), unknown_uids: [...unknown] }),
        );
        await expectUntouched(c.high, c.low);
      }
    });

    it('restarts nothing for a notification with an unknown uid', async () => {
      const c = await cameraWithStreams();
      const answer = await rpc(restart([c.high, 'nope-notified']));
      expect(answer.status).toBe(204);
      await expectUntouched(c.high, c.low);
    });
  });

  describe('ids', () => {
    it.each([
      ['a string id', 'abc'],
      ['an empty string id', ''],
      ['a unicode string id', 'идентификатор ✓'],
      ['a null id', null],
      ['the integer 0', 0],
      ['a negative integer', -7],
      ['a large integer', Number.MAX_SAFE_INTEGER],
    ])('echoes %s on success and on failure', async (_name, id) => {
      const success = await rpc(restart([fixture.a.high], id));
      expect(success.status).toBe(200);
      expect(success.json).toStrictEqual(ok(id));
      const failure = await rpc(call('foobar', undefined, id));
      expect(failure.status).toBe(400);
      expect(failure.json).toStrictEqual(methodNotFound(id));
      const invalid = await rpc(restart([], id));
      expect((invalid.json as { id: unknown }).id).toStrictEqual(id);
    });

    it('echoes a valid id on an invalid request', async () => {
      for (const [request, id] of [
        [{ jsonrpc: '1.0', method: 'Stream.Restart', params: [fixture.a.high], id: 7 }, 7],
        [{ method: 'Stream.Restart', params: [fixture.a.high], id: 'no-version' }, 'no-version'],
        [{ jsonrpc: '2.0', method: 42, id: 8 }, 8],
        [{ jsonrpc: '2.0', params: [fixture.a.high], id: 'no-method' }, 'no-method'],
        [{ jsonrpc: '2.0', method: 'Stream.Restart', params: null, id: 9 }, 9],
        [{ jsonrpc: '2.0', method: 'Stream.Restart', params: 5, id: null }, null],
      ] as const) {
        const answer = await rpc(JSON.stringify(request));
        expect(answer.status, JSON.stringify(request)).toBe(400);
        expect(answer.json).toStrictEqual(invalidRequest(id));
      }
    });

    it('answers null for an id that is not a string, a number or null', async () => {
      for (const id of [true, { a: 1 }, [1], false]) {
        const answer = await rpc(restart([fixture.a.high], id));
        expect(answer.status).toBe(400);
        expect(answer.json).toStrictEqual(invalidRequest(null));
      }
    });

    it('answers each call of a batch with its own id, in the order of the calls', async () => {
      const answer = await rpc(
        `[${restart([fixture.a.high], 'x')}, ${call('nope', [], 2)}, ${restart([], 3)}, ${restart(fixture.b.low, null)}]`,
      );
      expect(answer.status).toBe(200);
      expect(answer.json).toStrictEqual([
        ok('x'),
        methodNotFound(2),
        invalidParams(3, expect.objectContaining({ message: expect.any(String) })),
        ok(null),
      ]);
    });
  });

  describe('method lookup', () => {
    it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'stream.restart', 'Stream.Restart ', ''])(
      'does not find %j',
      async (method) => {
        const answer = await rpc(call(method, [fixture.a.high], 31));
        expect(answer.status).toBe(400);
        expect(answer.json).toStrictEqual(methodNotFound(31));
      },
    );
  });

  describe('batches', () => {
    it('refuses a batch of more than 100 calls as a whole and runs none of them', async () => {
      const c = await cameraWithStreams();
      const calls = Array.from({ length: 101 }, (_, i) => restart([c.high], i));
      const answer = await rpc(`[${calls.join(',')}]`);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect((answer.json as { error: { message: string } }).error.message).toMatch(/^Invalid Request/);
      await expectUntouched(c.high, c.low);
    });

    it('runs a batch of exactly 100 calls', async () => {
      const calls = Array.from({ length: 100 }, (_, i) => restart([fixture.a.low], i));
      const answer = await rpc(`[${calls.join(',')}]`);
      expect(answer.status).toBe(200);
      expect(answer.json).toStrictEqual(Array.from({ length: 100 }, (_, i) => ok(i)));
    });

    it('runs each call of a batch on its own: one failing call does not undo another', async () => {
      const c = await cameraWithStreams();
      const answer = await rpc(`[${restart([c.high], 1)}, ${restart([c.low, 'nope-batch'], 2)}]`);
      expect(answer.json).toStrictEqual([
        ok(1),
        invalidParams(2, { message: expect.any(String), unknown_uids: ['nope-batch'] }),
      ]);
      expect((await stream(c.high)).reconnection.reset_at).not.toBeNull();
      await expectUntouched(c.low);
    });

    it('answers a batch holding an invalid request and notifications with the invalid request alone', async () => {
      const answer = await rpc(`[${restart([fixture.a.high])}, {"jsonrpc":"2.0"}]`);
      expect(answer.status).toBe(200);
      expect(answer.json).toStrictEqual([invalidRequest()]);
    });
  });

  describe('HTTP', () => {
    it('answers 401 without a token and runs nothing', async () => {
      const c = await cameraWithStreams();
      const answer = await rpc(restart([c.high], 1), { token: false });
      expect(answer.status).toBe(401);
      expect(answer.json).toStrictEqual({ message: 'Unauthenticated.' });
      await expectUntouched(c.high);
    });

    it('answers 401 with an unknown token', async () => {
      const answer = await rpc(restart([fixture.a.high], 1), { token: 'not-a-token' });
      expect(answer.status).toBe(401);
      expect(answer.json).toStrictEqual({ message: 'Unauthenticated.' });
    });

    it('accepts the token as a query parameter', async () => {
      const answer = await rpc(restart([fixture.a.high], 1), {
        token: false,
        path: `/api/?token=${encodeURIComponent(server.token)}`,
      });
      expect(answer.status).toBe(200);
      expect(answer.json).toStrictEqual(ok(1));
    });

    it('answers an empty body with a parse error', async () => {
      const answer = await rpc('');
      expect(answer.status).toBe(400);
      expect(answer.json).toStrictEqual(parseError());
    });

    it('answers a JSON scalar with an invalid request', async () => {
      for (const text of ['1', '"Stream.Restart"', 'null', 'true']) {
        const answer = await rpc(text);
        expect(answer.status, text).toBe(400);
        expect(answer.json, text).toStrictEqual(invalidRequest());
      }
    });
  });
});
