import { describe, expect, it, vi } from 'vitest';
import { VssError } from './errors';
import type { Logger } from './logger';
import { createJsonRpcHandler, type JsonRpcMethod } from './rpc';

interface LogEntry {
  level: keyof Logger;
  msg: string;
  fields?: Record<string, unknown>;
}

function recordingLogger() {
  const entries: LogEntry[] = [];
  const log = (level: keyof Logger) => (msg: string, fields?: Record<string, unknown>) =>
    void entries.push({ level, msg, ...(fields ? { fields } : {}) });
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { logger, entries };
}

/** A handler over a fake method table, with every call of every method recorded. */
function setup(extra: Record<string, JsonRpcMethod> = {}) {
  const calls: { method: string; params: unknown }[] = [];
  const record =
    (method: string, answer: (params: unknown) => unknown): JsonRpcMethod =>
    async (params) => {
      calls.push({ method, params });
      return answer(params);
    };
  const methods: Record<string, JsonRpcMethod> = {
    'Echo.Params': record('Echo.Params', (params) => params ?? 'no params'),
    'Fail.Validation': record('Fail.Validation', () => {
      throw new VssError('validation_failed', 'The 0 field format is invalid.', { errors: { '0': ['The 0 field format is invalid.'] } });
    }),
    'Fail.NotFound': record('Fail.NotFound', () => {
      throw new VssError('not_found', 'Unknown stream uids: nothing was restarted.', { data: { unknown_uids: ['nope'] } });
    }),
    'Fail.Plain': record('Fail.Plain', () => {
      throw new Error('connection to db-internal.example:5432 refused');
    }),
    'Fail.NonError': record('Fail.NonError', () => {
      throw 'a thrown string';
    }),
    'Fail.Unavailable': record('Fail.Unavailable', () => {
      throw new VssError('database_unavailable', 'The database is unreachable.');
    }),
    'Return.Nothing': record('Return.Nothing', () => undefined),
    ...extra,
  };
  const { logger, entries } = recordingLogger();
  const handle = createJsonRpcHandler(methods, logger);
  return { handle, calls, entries };
}

const request = (fields: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...fields });
const error = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });

describe('createJsonRpcHandler', () => {
  describe('parse errors', () => {
    it.each([
      ['an empty text', ''],
      ['a lone brace', '{'],
      ['the invalid JSON of the specification', '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]'],
      ['a truncated batch', '[{"jsonrpc": "2.0", "method": "Echo.Params", "id": 1}, {"jsonrpc": "2.0", "method"'],
      ['single quotes', "{'jsonrpc': '2.0'}"],
      ['a trailing comma', '{"jsonrpc": "2.0", "method": "Echo.Params", "id": 1,}'],
      ['NaN', 'NaN'],
    ])('answers %s with -32700 and id null, calling nothing', async (_name, text) => {
      const { handle, calls } = setup();
      await expect(handle(text)).resolves.toStrictEqual(error(null, -32700, 'Parse error'));
      expect(calls).toEqual([]);
    });

    it('answers an absurdly deep nesting with an answer, not a crash', async () => {
      const { handle } = setup();
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const answer = await handle(deep);
      expect(answer).toBeDefined();
      const single = Array.isArray(answer) ? answer[0] : answer;
      expect(single).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
      expect([-32700, -32600]).toContain((single as { error: { code: number } }).error.code);
    });
  });

  describe('invalid requests', () => {
    it.each([
      ['a number', '1'],
      ['a string', '"Echo.Params"'],
      ['null', 'null'],
      ['true', 'true'],
      ['an object without jsonrpc', JSON.stringify({ method: 'Echo.Params', id: 1 })],
      ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', method: 'Echo.Params', id: 1 })],
      ['jsonrpc as a number', JSON.stringify({ jsonrpc: 2.0, method: 'Echo.Params', id: 1 })],
      ['no method', request({ id: 1 })],
      ['a numeric method', request({ method: 1, params: 'bar' })],
      ['a null method', request({ method: null, id: 1 })],
      ['params null', request({ method: 'Echo.Params', params: null, id: 1 })],
      ['params a number', request({ method: 'Echo.Params', params: 5, id: 1 })],
      ['params true', request({ method: 'Echo.Params', params: true, id: 1 })],
      ['an id that is an object', request({ method: 'Echo.Params', id: { a: 1 } })],
      ['an id that is an array', request({ method: 'Echo.Params', id: [1] })],
      ['an id that is a boolean', request({ method: 'Echo.Params', id: true })],
    ])('answers %s with -32600, calling nothing', async (_name, text) => {
      const { handle, calls } = setup();
      const answer = await handle(text);
      expect(answer).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' } });
      expect(calls).toEqual([]);
    });

    it('echoes a valid id on an invalid request, and null for an invalid id', async () => {
      const { handle } = setup();
      await expect(handle(JSON.stringify({ jsonrpc: '1.0', method: 'Echo.Params', id: 7 }))).resolves.toStrictEqual(
        error(7, -32600, 'Invalid Request'),
      );
      await expect(handle(request({ method: 3, id: 'x' }))).resolves.toStrictEqual(error('x', -32600, 'Invalid Request'));
      await expect(handle(request({ method: 'Echo.Params', id: { a: 1 } }))).resolves.toStrictEqual(
        error(null, -32600, 'Invalid Request'),
      );
    });

    it('answers an empty batch with a single -32600', async () => {
      const { handle } = setup();
      await expect(handle('[]')).resolves.toStrictEqual(error(null, -32600, 'Invalid Request'));
    });

    it('answers each invalid element of a batch', async () => {
      const { handle } = setup();
      await expect(handle('[1,2,3]')).resolves.toStrictEqual([
        error(null, -32600, 'Invalid Request'),
        error(null, -32600, 'Invalid Request'),
        error(null, -32600, 'Invalid Request'),
      ]);
    });

    it('refuses a batch over 100 calls as a whole and runs none of them', async () => {
      const { handle, calls } = setup();
      const batch = Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', method: 'Echo.Params', params: [id], id }));
      const answer = await handle(JSON.stringify(batch));
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(Array.isArray(answer)).toBe(false);
      expect(calls).toEqual([]);
    });

    it('runs a batch of exactly 100 calls, in order', async () => {
      const { handle, calls } = setup();
      const batch = Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', method: 'Echo.Params', params: [id], id }));
      const answer = await handle(JSON.stringify(batch));
      expect(answer).toStrictEqual(batch.map(({ id }) => ({ jsonrpc: '2.0', id, result: [id] })));
      expect(calls.map(({ params }) => (params as number[])[0])).toEqual(batch.map(({ id }) => id));
    });
  });

  describe('method lookup', () => {
    it.each([
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'isPrototypeOf',
      '__defineGetter__',
      '__lookupGetter__',
      'propertyIsEnumerable',
      'toLocaleString',
      'echo.params',
      'Echo.Params ',
      '',
    ])('does not find %j', async (method) => {
      const { handle, calls } = setup();
      await expect(handle(request({ method, params: [], id: 1 }))).resolves.toStrictEqual(
        error(1, -32601, 'Method not found'),
      );
      expect(calls).toEqual([]);
    });

    it('finds a method named like an Object.prototype member only when the table has it', async () => {
      const { handle } = setup({ toString: async () => 'own' });
      await expect(handle(request({ method: 'toString', id: 1 }))).resolves.toStrictEqual({
        jsonrpc: '2.0',
        id: 1,
        result: 'own',
      });
    });

    it('answers nothing for a notification of an unknown method', async () => {
      const { handle } = setup();
      await expect(handle(request({ method: 'foobar' }))).resolves.toBeUndefined();
    });
  });

  describe('calls', () => {
    it('passes positional and named params, the plain string, and nothing when there are none', async () => {
      const { handle, calls } = setup();
      await handle(request({ method: 'Echo.Params', params: [42, 23], id: 1 }));
      await handle(request({ method: 'Echo.Params', params: { subtrahend: 23, minuend: 42 }, id: 2 }));
      await handle(request({ method: 'Echo.Params', params: 'uid-1', id: 3 }));
      await handle(request({ method: 'Echo.Params', id: 4 }));
      expect(calls.map(({ params }) => params)).toStrictEqual([[42, 23], { subtrahend: 23, minuend: 42 }, 'uid-1', undefined]);
    });

    it('passes every key of named params as sent, __proto__ included, without polluting anything', async () => {
      const { handle, calls } = setup();
      await handle('{"jsonrpc":"2.0","method":"Echo.Params","params":{"__proto__":{"polluted":1},"a":1},"id":1}');
      expect(calls).toHaveLength(1);
      const params = calls[0]!.params as Record<string, unknown>;
      expect(Object.keys(params)).toEqual(['__proto__', 'a']);
      expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('echoes string, number and null ids', async () => {
      const { handle } = setup();
      for (const id of ['1', '', 0, -1, 1.5, null]) {
        await expect(handle(request({ method: 'Echo.Params', params: ['x'], id }))).resolves.toStrictEqual({
          jsonrpc: '2.0',
          id,
          result: ['x'],
        });
      }
    });

    it('always answers a success with a result member, even when the method returns nothing', async () => {
      const { handle } = setup();
      const answer = await handle(request({ method: 'Return.Nothing', id: 1 }));
      // On the wire an undefined result would vanish, leaving neither result nor error.
      expect(JSON.parse(JSON.stringify(answer))).toStrictEqual({ jsonrpc: '2.0', id: 1, result: null });
    });

    it('answers a batch in the order of its calls, leaving out notifications', async () => {
      const { handle, calls } = setup();
      const answer = await handle(
        JSON.stringify([
          { jsonrpc: '2.0', method: 'Echo.Params', params: [1], id: 'a' },
          { jsonrpc: '2.0', method: 'Echo.Params', params: [2] },
          { foo: 'boo' },
          { jsonrpc: '2.0', method: 'foo.get', params: { name: 'myself' }, id: '5' },
          { jsonrpc: '2.0', method: 'Fail.Plain', id: 6 },
          { jsonrpc: '2.0', method: 'Echo.Params', params: [3], id: 'b' },
        ]),
      );
      expect(answer).toStrictEqual([
        { jsonrpc: '2.0', id: 'a', result: [1] },
        error(null, -32600, 'Invalid Request'),
        error('5', -32601, 'Method not found'),
        error(6, -32603, 'Internal error'),
        { jsonrpc: '2.0', id: 'b', result: [3] },
      ]);
      expect(calls.map(({ method, params }) => [method, params])).toEqual([
        ['Echo.Params', [1]],
        ['Echo.Params', [2]],
        ['Fail.Plain', undefined],
        ['Echo.Params', [3]],
      ]);
    });

    it('answers nothing for a batch of notifications only, though it runs them', async () => {
      const { handle, calls } = setup();
      const answer = await handle(
        JSON.stringify([
          { jsonrpc: '2.0', method: 'Echo.Params', params: [1] },
          { jsonrpc: '2.0', method: 'Fail.Plain' },
          { jsonrpc: '2.0', method: 'nope' },
        ]),
      );
      expect(answer).toBeUndefined();
      expect(calls.map(({ method }) => method)).toEqual(['Echo.Params', 'Fail.Plain']);
    });
  });

  describe('failures of methods', () => {
    it.each(['Fail.Plain', 'Fail.NonError', 'Fail.Validation', 'Fail.NotFound', 'Fail.Unavailable'])(
      'answers nothing for a notification of %s',
      async (method) => {
        const { handle, calls } = setup();
        await expect(handle(request({ method, params: ['x'] }))).resolves.toBeUndefined();
        expect(calls).toHaveLength(1);
      },
    );

    it('turns a validation VssError into -32602 with its message and errors as data', async () => {
      const { handle, entries } = setup();
      await expect(handle(request({ method: 'Fail.Validation', params: ['bad uid'], id: 1 }))).resolves.toStrictEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: 'Invalid params',
          data: { message: 'The 0 field format is invalid.', errors: { '0': ['The 0 field format is invalid.'] } },
        },
      });
      expect(entries.filter(({ level }) => level === 'error')).toEqual([]);
    });

    it('turns a not-found VssError into -32602 with its data merged in', async () => {
      const { handle } = setup();
      await expect(handle(request({ method: 'Fail.NotFound', params: ['nope'], id: 'q' }))).resolves.toStrictEqual({
        jsonrpc: '2.0',
        id: 'q',
        error: {
          code: -32602,
          message: 'Invalid params',
          data: { message: 'Unknown stream uids: nothing was restarted.', unknown_uids: ['nope'] },
        },
      });
    });

    it.each([
      ['a plain Error', 'Fail.Plain'],
      ['a thrown string', 'Fail.NonError'],
      ['a VssError that is the server failing', 'Fail.Unavailable'],
    ])('turns %s into -32603 "Internal error" with no data, and logs it', async (_name, method) => {
      const { handle, entries } = setup();
      const answer = await handle(request({ method, id: 9 }));
      expect(answer).toStrictEqual(error(9, -32603, 'Internal error'));
      const text = JSON.stringify(answer);
      expect(text).not.toContain('db-internal');
      expect(text).not.toMatch(/\n\s+at |\.ts:\d|node:internal/);
      const logged = entries.filter(({ level }) => level === 'error');
      expect(logged).toHaveLength(1);
      expect(logged[0]!.fields).toMatchObject({ method });
      expect(logged[0]!.fields).toHaveProperty('error');
    });

    it('keeps a plain Error out of the answer even when its message looks harmless', async () => {
      const { handle, entries } = setup({
        'Fail.Leaky': async () => {
          const failure = new Error('stack-bearing failure');
          failure.stack = 'Error: stack-bearing failure\n    at leak (/srv/vss/src/secret.ts:1:1)';
          throw failure;
        },
      });
      const answer = await handle(request({ method: 'Fail.Leaky', id: 1 }));
      expect(JSON.stringify(answer)).not.toContain('stack-bearing');
      expect(JSON.stringify(answer)).not.toContain('secret.ts');
      expect(entries.some(({ level, fields }) => level === 'error' && (fields?.error as Error)?.message === 'stack-bearing failure')).toBe(true);
    });

    it('does not reject when a method throws synchronously', async () => {
      const throwing = vi.fn((() => {
        throw new Error('sync');
      }) as unknown as JsonRpcMethod);
      const { handle } = setup({ 'Fail.Sync': throwing });
      await expect(handle(request({ method: 'Fail.Sync', id: 1 }))).resolves.toStrictEqual(error(1, -32603, 'Internal error'));
      expect(throwing).toHaveBeenCalledOnce();
    });
  });
});
