import { Validator } from '@seriousme/openapi-schema-validator';
import { MEDIA_FORBIDDEN_MESSAGE, operations, type Operation } from '@vss/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

interface DocOperation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses?: Record<string, unknown>;
  security?: Record<string, unknown>[];
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, DocOperation>>;
  components?: { securitySchemes?: Record<string, unknown> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const all = Object.entries(operations) as [string, Operation][];

/** A value for a path parameter that a route accepts: an id that may not exist, or a well-formed uid. */
function fillPath(path: string, parameters: DocOperation['parameters'] = []) {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const schema = (parameters.find((p) => p.name === name && p.in === 'path') as { schema?: { type?: string } } | undefined)
      ?.schema;
    return schema?.type === 'integer' ? '1' : 'some-uid_1';
  });
}

describe('the OpenAPI document at GET /api/openapi.json', () => {
  let server: TestServer;
  let doc: Document;
  /** What the server answers for a path that has no route at all. */
  let routeNotFound: { status: number; body: unknown };

  async function answer(method: string, path: string, init: { token?: string | false } = {}) {
    const response = await server.request(path, {
      method: method.toUpperCase(),
      ...(method === 'post' ? { body: {} } : {}),
      ...init,
    });
    // An event stream never ends by itself: its status and headers are the answer.
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      await response.body?.cancel();
      return { status: response.status, body: '' };
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: compared as text
    }
    return { status: response.status, body };
  }

  const isRouteNotFound = (a: { status: number; body: unknown }) =>
    a.status === routeNotFound.status && JSON.stringify(a.body) === JSON.stringify(routeNotFound.body);

  beforeAll(async () => {
    server = await startTestServer('pglite');
    const response = await server.request('/api/openapi.json', { token: false });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await response.json()) as Document;
    routeNotFound = await answer('get', '/api/admin/v1/no-such-route/at-all');
  });
  afterAll(() => server?.stop());

  it('tells a missing route from a missing record', async () => {
    expect(routeNotFound.status).toBe(404);
    const missingRecord = await answer('get', '/api/admin/v1/cameras/2147483647');
    expect(missingRecord.status).toBe(404);
    expect(isRouteNotFound(missingRecord)).toBe(false);
    expect(isRouteNotFound(await answer('post', '/api/admin/v1/cameras/1/no-such-action'))).toBe(true);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    // A copy: the validator may annotate what it is given.
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toMatch(/^3\.1\./);
    // Every reference resolves, if there are any.
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('is what the server serves without a token, whatever token is sent', async () => {
    const withToken = await server.request('/api/openapi.json');
    expect(withToken.status).toBe(200);
    expect(await withToken.json()).toEqual(doc);
  });

  it.each(all)('documents %s', (name, op) => {
    const described = doc.paths[op.path]?.[op.method];
    expect(described, `${op.method.toUpperCase()} ${op.path}`).toBeDefined();
    expect(described!.operationId).toBe(name);
    for (const param of Object.keys(op.pathParams ?? {})) {
      expect(described!.parameters).toContainEqual(expect.objectContaining({ name: param, in: 'path', required: true }));
    }
    expect(Boolean(described!.requestBody)).toBe(Boolean(op.body));
    if (op.body) expect(described!.requestBody!.content).toHaveProperty(['application/json']);
    expect(Object.keys(described!.responses ?? {}).sort()).toEqual(Object.keys(op.responses).sort());
    if (op.auth === 'api-token') {
      expect(described!.security?.length).toBeGreaterThan(0);
      expect(described!.responses).toHaveProperty('401');
    } else if (op.auth === 'access-token') {
      expect(described!.security?.length).toBeGreaterThan(0);
      expect(described!.responses).toHaveProperty('403');
    } else {
      expect(described!.security).toEqual([]);
    }
  });

  it('declares every path parameter it uses, and uses every one it declares', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const [method, described] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        const declared = (described.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name).sort();
        expect(declared, `${method.toUpperCase()} ${path}`).toEqual(inPath);
      }
    }
  });

  it('names only security schemes it defines', () => {
    const schemes = Object.keys(doc.components?.securitySchemes ?? {});
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, described] of Object.entries(item)) {
        for (const requirement of described.security ?? []) {
          for (const scheme of Object.keys(requirement)) expect(schemes, `${method} ${path}`).toContain(scheme);
        }
      }
    }
  });

  it('documents nothing beyond the operation table', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((m) => HTTP_METHODS.includes(m)).map((m) => `${m} ${path}`),
    );
    expect(documented.sort()).toEqual(all.map(([, op]) => `${op.method} ${op.path}`).sort());
  });

  describe('every documented route is answered', () => {
    const routes = () =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([m]) => HTTP_METHODS.includes(m))
          .map(([method, described]) => ({ path, method, described })),
      );

    it('with a route of its own and a documented status', async () => {
      expect(routes().length).toBe(all.length);
      for (const { path, method, described } of routes()) {
        const url = fillPath(path, described.parameters);
        const got = await answer(method, url);
        const what = `${method.toUpperCase()} ${url} → ${got.status} ${JSON.stringify(got.body).slice(0, 200)}`;
        expect(isRouteNotFound(got), what).toBe(false);
        expect(got.status, what).not.toBe(405);
        expect(Object.keys(described.responses ?? {}), what).toContain(String(got.status));
      }
    });

    it('with 401 without a token exactly where the document asks for one (403 on media routes)', async () => {
      for (const { path, method, described } of routes()) {
        const url = fillPath(path, described.parameters);
        const got = await answer(method, url, { token: false });
        const what = `${method.toUpperCase()} ${url} → ${got.status}`;
        expect(isRouteNotFound(got), what).toBe(false);
        if (operations[described.operationId as keyof typeof operations].auth === 'access-token') {
          expect(got.status, what).toBe(403);
          expect(got.body, what).toEqual({ message: MEDIA_FORBIDDEN_MESSAGE, code: 'forbidden' });
        } else if ((described.security ?? []).length > 0) {
          expect(got.status, what).toBe(401);
          expect(got.body, what).toEqual({ message: 'Unauthenticated.' });
        } else {
          expect(got.status, what).not.toBe(401);
        }
      }
    });
  });
});
