import type { IntercomDriver } from '@vss/core';
import { operations, type Operation } from '@vss/schema';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

/**
 * Property: whatever arrives — any body, any path parameter, any content type, with or without a
 * token — the server answers below 500, shows no stack trace, logs no error, pollutes no prototype,
 * answers an api-token operation without a valid token with 401, and stays healthy.
 */

const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);

/** No intercom has a reachable host here: the driver accepts at once, so a restart never leaves the process. */
const acceptingDriver: IntercomDriver = { vendor: 'hikvision', reboot: async () => {} };

type Fuzzed = [string, Operation];
const fuzzed = (Object.entries(operations) as Fuzzed[]).filter(([, op]) => op.body || op.pathParams || op.query);

/** Every property name anywhere in a body schema: the raw material of near-valid bodies. */
function fieldNames(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const names = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const properties = (node as { properties?: Record<string, unknown> }).properties;
    if (properties && typeof properties === 'object') for (const name of Object.keys(properties)) names.add(name);
    Object.values(node).forEach(walk);
  };
  walk(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
  return [...names];
}

const POLLUTION = '{"polluted":"yes"}';
const pollutionBodies = [
  `{"__proto__":${POLLUTION}}`,
  `{"constructor":{"prototype":${POLLUTION}}}`,
  `[{"__proto__":${POLLUTION}}]`,
  `{"a":{"__proto__":${POLLUTION}},"b":[{"constructor":{"prototype":${POLLUTION}}}]}`,
];

const numberLiterals = [
  '1e400', '-1e400', '123456789012345678901234567890', '-0', '0.1e-400', '9007199254740993', '2147483648',
  '-2147483649', '1E+2', '4.9e-324', '1.7976931348623157e308',
];

const trickyStrings = [
  '', ' ', 'a\u0000b', '\u0000', '\ud800', '\u202e', '😀', 'камера', 'x'.repeat(300), 'x'.repeat(70_000),
  'high', 'low', 'public', 'private', 'hikvision', 'motion_detection', 'STOPPED', 'Stream.Restart', '2.0',
  '00:11:22:33:44:55', '02:AA:bb:cc:dd:ee', '192.0.2.1', '::1', '127.0.0.1', '999.1.1.1',
  'rtsp://192.0.2.1/x', 'rtsp://user:pass@192.0.2.1/x', 'file:///etc/passwd', 'javascript:alert(1)', 'http://[::1]:80/',
  '__proto__', 'constructor', 'prototype', 'toString', '<script>alert(1)</script>', "'; drop table cameras; --",
  '../../etc/passwd', '%2e%2e', '2026-01-01T00:00:00Z', '1', '0', '-1', 'true', 'null',
];

const trickyNumbers = [
  0, 1, -1, 1.5, 7, 30, 90, 91, 2_147_483_647, 2_147_483_648, -2_147_483_648, Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER, 1e308, Number.MIN_VALUE, 315_360_000, 315_360_001,
];

/** Path parameter values, sent as they are (already URL text). */
const rawPathValues = [
  '..', '.', '%2e%2e', '%2E%2e', '%2e', '%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%2F', 'a%2Fb', '..%2F..%2F..%2Fhealthz',
  '%252e%252e', '0', '-1', '01', '1.5', '1e3', '0x10', '+1', '%201', '2147483647', '2147483648', '4294967296',
  '99999999999999999999999999', '-0', 'NaN', 'Infinity', 'null', 'undefined', '__proto__', 'constructor', 'toString',
  '%F0%9F%98%80', '%D0%BA', 'a-b_c', 'x'.repeat(129), 'x'.repeat(5000),
];

const contentTypes = [
  undefined, 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json',
  'text/plain', 'text/html', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz',
  'application/json; charset=iso-8859-1', '', ';', '*/*', 'application/', 'application/json, text/plain',
];
const accepts = [undefined, 'application/json', 'text/html', '*/*', 'application/json;q=0', 'garbage;q=abc', 'text/html, application/json'];
type Auth = 'bearer' | 'bare' | 'query' | 'none' | 'garbage';

interface Seeds {
  cameraId: number;
  cameraUuid: string;
  cameraMac: string;
  treeId: number;
  caseId: number;
  intercomId: number;
  uid: string;
}

/** A valid body per operation, so that mutations of it reach past the first validation. */
function validBodies(s: Seeds): Record<string, unknown> {
  return {
    issueApiToken: { client: 'fuzz', duration: 0 },
    issueAccessToken: { uid: s.uid, user: 'viewer', duration: 60 },
    jsonRpc: { jsonrpc: '2.0', method: 'Stream.Restart', params: [s.uid], id: 1 },
    restartAnalyticsCase: { camera: s.cameraId, analytic_case_camera: s.caseId },
    stopAnalyticsCase: { camera: s.cameraId, analytic_case_camera: s.caseId },
    restartIntercom: { intercom: s.intercomId },
    createCameraV2: {
      name: 'Fuzz', mac: '02:00:00:00:00:01', group_id: s.treeId, serial_number: 'SN', group_type: 'private',
      latitude: 1.5, longitude: 2.5, external_id: 'ext', log_extra: { a: 1 },
      onvif_credentials: { login: 'admin', password: 'secret', port: 80 },
      streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 30 }, { type: 'low', is_archive_enabled: false }],
    },
    createCameraV1: { name: 'Fuzz', mac: '02:00:00:00:00:02', group_id: s.treeId, is_archive_enabled: true, archive_storage_days: 7 },
    deviceAddress: { mac: s.cameraMac, ip: '192.0.2.20' },
    createStream: { type: 'high', url: 'rtsp://192.0.2.21/live', uid: 'fuzz-stream' },
    createTreeElement: { name: 'Fuzz tree', key: 'fuzz-key', parent_id: s.treeId },
    createFolder: { name: 'Fuzz folder', key: 'fuzz-folder' },
    createAnalyticsCase: { kind: 'motion_detection' },
    createIntercom: { name: 'Door', vendor: 'hikvision', host: '192.0.2.30', port: 80, login: 'admin', password: 'x' },
    createWebhook: { url: 'http://127.0.0.1:1/fuzz', events: ['camera.created'], secret: 'fuzz-secret-0123456789' },
  };
}

function arbitraries(name: string, op: Operation, s: Seeds) {
  const names = fieldNames(op.body);
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(names.length ? names : ['name']), '__proto__', 'constructor', 'prototype', 'polluted') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  );
  const scalar = fc.oneof(
    fc.constantFrom(...trickyStrings, s.uid, s.cameraUuid, s.cameraMac).map((v) => JSON.stringify(v)),
    fc.constantFrom(...trickyNumbers, s.cameraId, s.treeId, s.caseId, s.intercomId).map(String),
    fc.constantFrom(...numberLiterals),
    fc.constantFrom('true', 'false', 'null', '{}', '[]', POLLUTION, `{"prototype":${POLLUTION}}`),
    fc.string({ unit: 'grapheme', maxLength: 40 }).map((v) => JSON.stringify(v)),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  );
  // JSON text, built by hand so that `__proto__` keys and unrepresentable numbers reach the server verbatim.
  const { value } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, scalar, tie('object'), tie('array')),
    object: fc
      .array(fc.tuple(key, tie('value')), { maxLength: 6 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
  }));

  const seed = validBodies(s)[name] as Record<string, unknown> | undefined;
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), key, value }),
    fc.record({ kind: fc.constant('delete' as const), key: fc.constantFrom(...Object.keys(seed ?? { name: 1 })) }),
  );
  // A valid body with a few fields changed, dropped or added: past the schema's outer checks.
  const nearValid = fc.array(mutation, { minLength: 1, maxLength: 4 }).map((mutations) => {
    const fields = new Map(Object.entries(seed ?? {}).map(([k, v]) => [k, JSON.stringify(v)]));
    for (const m of mutations) {
      if (m.kind === 'set') fields.set(m.key, m.value);
      else fields.delete(m.key);
    }
    return `{${[...fields].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  });
  const deep = fc
    .tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('array', 'object', 'field'))
    .map(([depth, shape]) => {
      if (shape === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      if (shape === 'object') return nested;
      const fields = Object.entries(seed ?? {}).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
      return `{${[...fields, `${JSON.stringify(names[0] ?? 'name')}:${nested}`].join(',')}}`;
    });

  const rpcCall = fc
    .record(
      {
        jsonrpc: fc.oneof(fc.constant('"2.0"'), scalar),
        method: fc.oneof(fc.constant('"Stream.Restart"'), fc.constantFrom('"__proto__"', '"toString"', '"constructor"'), scalar),
        params: fc.oneof(
          fc.array(fc.constantFrom(s.uid, 'unknown-uid', 'bad uid', ''), { maxLength: 4 }).map((v) => JSON.stringify(v)),
          fc
            .array(fc.tuple(fc.constantFrom(s.cameraUuid, s.cameraUuid.toUpperCase(), '__proto__', '-'.repeat(36), 'x'), fc.array(fc.constantFrom(s.uid, 'nope'))), { maxLength: 3 })
            .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
          value,
        ),
        id: fc.oneof(fc.constantFrom('1', '"a"', 'null', '1.5', '1e400', '{}', '[]', 'true'), scalar),
      },
      { requiredKeys: [] },
    )
    .map((call) => `{${Object.entries(call).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
  const rpc = fc.oneof(
    rpcCall,
    fc.array(rpcCall, { maxLength: 8 }).map((calls) => `[${calls.join(',')}]`),
    rpcCall.map((call) => `[${Array.from({ length: 101 }, () => call).join(',')}]`),
  );

  const body: fc.Arbitrary<string | undefined> = op.body
    ? fc.oneof(
        fc.constant(undefined),
        nearValid,
        nearValid,
        value,
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.anything().map((v) => JSON.stringify(v) as string | undefined),
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.constantFrom(...pollutionBodies),
        deep,
        ...(name === 'jsonRpc' ? [rpc, rpc] : []),
      )
    : fc.constant(undefined);

  const seedFor = (kind: 'integer' | 'uid', param: string) =>
    kind === 'uid' ? s.uid : { camera: s.cameraId, analytic_case_camera: s.caseId, intercom: s.intercomId, id: s.treeId }[param] ?? 1;
  const pathValue = (kind: 'integer' | 'uid', param: string) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(String(seedFor(kind, param))) },
      fc.constantFrom(...rawPathValues),
      fc.string({ unit: 'grapheme', maxLength: 30 }).map(encodeURIComponent),
      fc.integer().map(String),
      fc.bigInt().map(String),
    );
  const params = fc.record(
    Object.fromEntries(Object.entries(op.pathParams ?? {}).map(([param, kind]) => [param, pathValue(kind, param)])),
  ) as fc.Arbitrary<Record<string, string>>;
  const query = op.query
    ? fc.option(
        fc.dictionary(fc.constantFrom('page', 'per_page', 'after', '__proto__', 'token'), fc.oneof(fc.constantFrom(...rawPathValues), fc.string().map(encodeURIComponent))),
      )
    : fc.constant(null);

  return fc.record({
    params,
    body,
    query,
    // Mostly a valid token and JSON, so that most bodies get past authentication and media type checks.
    auth: fc.oneof({ weight: 3, arbitrary: fc.constantFrom<Auth>('bearer', 'bare', 'query') }, fc.constantFrom<Auth>('none', 'garbage')),
    contentType: fc.oneof({ weight: 2, arbitrary: fc.constant('application/json') }, fc.constantFrom(...contentTypes)),
    accept: fc.constantFrom(...accepts),
  });
}

interface Case {
  params: Record<string, string>;
  body: string | undefined;
  query: Record<string, string> | null;
  auth: Auth;
  contentType: string | undefined;
  accept: string | undefined;
}

const STACK_TRACE = /\n\s+at\s|node:internal|\.(?:ts|js|mjs|cjs):\d+:\d+/;
const prototypeNames = () => ({
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
});

describe.each(databaseKinds(process.env.DATABASE_URL))('fuzzing every operation on %s', (kind) => {
  let server: TestServer;
  let seeds: Seeds;
  const pristine = prototypeNames();

  beforeAll(async () => {
    server = await startTestServer(kind, { intercomDrivers: { hikvision: acceptingDriver } });
    const camera = (await createCamera(server)) as { id: number; uuid: string; mac: string; tree_element_id: number };
    const stream = await (
      await server.request(`/api/admin/v1/cameras/${camera.id}/streams`, { body: { type: 'low', url: 'rtsp://192.0.2.5/low' } })
    ).json();
    const analyticsCase = await (
      await server.request(`/api/admin/v1/cameras/${camera.id}/analytic-cases`, { body: { kind: 'motion_detection' } })
    ).json();
    const intercom = await (
      await server.request('/api/admin/v1/intercoms', {
        body: { name: 'Gate', vendor: 'hikvision', host: '192.0.2.40', login: 'admin', password: 'x' },
      })
    ).json();
    seeds = {
      cameraId: camera.id,
      cameraUuid: camera.uuid,
      cameraMac: camera.mac,
      treeId: camera.tree_element_id,
      caseId: analyticsCase.id,
      intercomId: intercom.id,
      uid: stream.uid,
    };
    expect(Object.values(seeds).every((v) => v !== undefined)).toBe(true);
  });
  afterAll(() => server?.stop());

  async function send(op: Operation, c: Case) {
    const path = op.path.replace(/\{(\w+)\}/g, (_, param: string) => c.params[param]!);
    const query = Object.entries(c.query ?? {}).map(([k, v]) => `${encodeURIComponent(k)}=${v}`);
    if (c.auth === 'query') query.push(`token=${encodeURIComponent(server.token)}`);
    let url: URL;
    try {
      url = new URL(`${server.url}${path}${query.length ? `?${query.join('&')}` : ''}`);
    } catch {
      return undefined;
    }
    const headers = new Headers();
    if (c.contentType !== undefined) headers.set('content-type', c.contentType);
    if (c.accept !== undefined) headers.set('accept', c.accept);
    if (c.auth === 'bearer') headers.set('authorization', `Bearer ${server.token}`);
    if (c.auth === 'bare') headers.set('authorization', server.token);
    if (c.auth === 'garbage') headers.set('authorization', 'Bearer 0123456789abcdef');
    const sendsBody = op.method === 'post' && c.body !== undefined;
    const response = await fetch(url, {
      method: op.method.toUpperCase(),
      headers,
      ...(sendsBody ? { body: Buffer.from(c.body!, 'utf8') } : {}),
    });
    const contentType = response.headers.get('content-type');
    // An event stream never ends by itself: once it has answered, the client goes away.
    if (contentType?.startsWith('text/event-stream')) {
      await response.body?.cancel();
      return { url, status: response.status, text: '', contentType };
    }
    return { url, status: response.status, text: await response.text(), contentType };
  }

  /** Whether the URL, once normalised, still has the operation's shape: the request reached that route. */
  function reachesRoute(op: Operation, url: URL) {
    const template = op.path.split('/');
    const actual = url.pathname.split('/');
    return (
      template.length === actual.length &&
      template.every((segment, i) => (segment.startsWith('{') ? actual[i] !== '' : segment === actual[i]))
    );
  }

  const errorLogs = () => server.logs.filter((line) => line.level === 'error');

  it.each(fuzzed)('%s', async (name, op) => {
    const arbitrary = arbitraries(name, op, seeds);
    const valid = validBodies(seeds)[name];
    const everyParam = (value: string) => Object.fromEntries(Object.keys(op.pathParams ?? {}).map((p) => [p, value]));
    const example = (overrides: Partial<Case>): [Case] => [
      {
        params: everyParam('1'),
        body: valid === undefined ? undefined : JSON.stringify(valid),
        query: null,
        auth: 'bearer',
        contentType: 'application/json',
        accept: 'application/json',
        ...overrides,
      },
    ];
    const withNul =
      valid && typeof valid === 'object'
        ? JSON.stringify(Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, typeof v === 'string' ? `${v}\u0000` : v])))
        : undefined;
    const examples: [Case][] = [
      example({}),
      example({ body: pollutionBodies[0] }),
      example({ body: pollutionBodies[1] }),
      ...(withNul ? [example({ body: withNul })] : []),
      ...(op.pathParams ? ['%zz', '%E0%A4%A', '%', '..', '%2e%2e', '99999999999999999999'].map((v) => example({ params: everyParam(v) })) : []),
    ];

    await fc.assert(
      fc.asyncProperty(arbitrary, async (c) => {
        const before = errorLogs().length;
        const answer = await send(op, c);
        if (!answer) return;
        const what = `${op.method.toUpperCase()} ${answer.url.pathname}${answer.url.search} → ${answer.status} ${answer.text.slice(0, 300)}`;
        expect(answer.status, what).toBeLessThan(500);
        expect(answer.text, what).not.toMatch(STACK_TRACE);
        expect(errorLogs().slice(before), what).toEqual([]);
        if (op.auth === 'api-token' && (c.auth === 'none' || c.auth === 'garbage') && reachesRoute(op, answer.url)) {
          expect(answer.status, what).toBe(401);
        }
        if (answer.contentType?.startsWith('application/json') && answer.text !== '') JSON.parse(answer.text);
        expect(({} as Record<string, unknown>).polluted, what).toBeUndefined();
        expect(([] as unknown as Record<string, unknown>).polluted, what).toBeUndefined();
        expect(prototypeNames(), what).toEqual(pristine);
      }),
      { numRuns: NUM_RUNS, examples, ...(SEED === undefined ? {} : { seed: SEED }) },
    );

    const health = await server.request('/healthz', { token: false });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  }, 120_000);

  it('is still healthy and unpolluted after all of it', async () => {
    expect((await server.request('/healthz', { token: false })).status).toBe(200);
    expect(prototypeNames()).toEqual(pristine);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
