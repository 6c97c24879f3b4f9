import { operations, type Operation } from '@vss/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cameraCount,
  createTreeElement,
  expectError,
  expectStatus,
  expectValidationError,
  randomMac,
  readJson,
  uniqueName,
  type Json,
} from '../support/fixtures';
import { databaseKinds, startTestServer, type TestServer, type TestRequestInit } from '../support/server';

const TREE = '/api/admin/v1/tree-elements';
const MiB = 1024 * 1024;

describe.each(databaseKinds(process.env.DATABASE_URL))('HTTP behaviour on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server?.stop());

  const treeCount = async () => (await expectStatus(await server.request(TREE), 200)).length as number;

  describe('content negotiation of errors', () => {
    /** Requests that fail, each with its status; `init` never sets Content-Type or Accept. */
    const failing: [string, number, string, TestRequestInit][] = [
      ['401 missing token', 401, '/api/admin/v1/cameras', { token: false }],
      ['404 unknown route', 404, '/api/no-such-route', {}],
      ['404 unknown camera', 404, '/api/admin/v1/cameras/2000000000', {}],
      ['405 wrong method', 405, '/api/v2/billing/cameras', {}],
      ['422 bad query', 422, '/api/admin/v1/cameras?per_page=101', {}],
    ];

    it.each(failing)('%s: JSON with Content-Type: application/json', async (_, status, path, init) => {
      const response = await server.request(path, {
        ...init,
        method: 'GET',
        headers: { 'content-type': 'application/json', accept: 'text/html' },
      });
      expect(response.status).toBe(status);
      expect(typeof (await readJson(response)).message).toBe('string');
    });

    it.each(failing)('%s: JSON with Accept: application/json', async (_, status, path, init) => {
      const response = await server.request(path, { ...init, headers: { accept: 'application/json' } });
      expect(response.status).toBe(status);
      expect(typeof (await readJson(response)).message).toBe('string');
    });

    it.each(failing)('%s: an HTML page with the same status otherwise', async (_, status, path, init) => {
      for (const accept of ['text/html', '*/*']) {
        const response = await server.request(path, { ...init, headers: { accept } });
        expect(response.status).toBe(status);
        expect(response.headers.get('content-type')).toMatch(/^text\/html\b/);
        const page = await response.text();
        expect(page).toMatch(/^<!doctype html>/i);
        expect(page).toContain(`<h1>${status} `);
        expect(page).not.toMatch(/\bat .+\.(?:ts|js):\d+/);
      }
    });

    it('escapes what the request put into an HTML error page', async () => {
      const response = await server.request('/api/admin/v1/streams/%3Cscript%3E', { headers: { accept: 'text/html' } });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('<script>');
    });
  });

  describe('routing', () => {
    it('answers 404 for an unknown route without echoing the path', async () => {
      const response = await server.request(`/api/${uniqueName('secret-route')}?token=abc`);
      const body = await expectError(response, 404, 'not_found');
      expect(body.message).not.toContain('secret-route');
    });

    it.each([
      ['GET', '/api/v2/billing/cameras', ['POST']],
      ['GET', '/api/v1/billing/streams', ['POST']],
      ['PUT', '/api/admin/v1/cameras/1', ['GET']],
      ['DELETE', TREE, ['GET', 'POST']],
      ['PATCH', `${TREE}/7/folders/`, ['GET', 'POST']],
      ['GET', '/api/auth/token/api/', ['POST']],
    ])('answers 405 for %s %s, with an Allow header (RFC 9110)', async (method, path, allowed) => {
      const response = await server.request(path, { method });
      expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(allowed);
      await expectError(response, 405, 'method_not_allowed');
    });

    it('serves documented paths with and without their trailing slash', async () => {
      expect((await server.request('/api/auth/token/api', { body: { client: 'slash', duration: 0 }, token: false })).status).toBe(200);
      expect((await server.request(`${TREE}/`)).status).toBe(200);
      expect((await server.request('/api/v2/billing/cameras/', { body: {}, token: false })).status).toBe(401);
    });
  });

  describe('request bodies', () => {
    /** A tree element body of exactly `bytes` bytes of JSON; its name is too long to be valid. */
    const bodyOfSize = (bytes: number) => {
      const shell = JSON.stringify({ name: '' });
      return JSON.stringify({ name: 'x'.repeat(bytes - shell.length) });
    };

    it('answers 413 to a body over 1 MiB, creates nothing and stays up', async () => {
      const before = await treeCount();
      const body = bodyOfSize(MiB + 1);
      expect(Buffer.byteLength(body)).toBe(MiB + 1);
      await expectError(await server.request(TREE, { body }), 413, 'payload_too_large');
      expect(await treeCount()).toBe(before);
      expect((await server.request('/healthz', { token: false })).status).toBe(200);
    });

    it('reads a body of exactly 1 MiB (then validates it: 422)', async () => {
      const body = bodyOfSize(MiB);
      expect(Buffer.byteLength(body)).toBe(MiB);
      await expectValidationError(await server.request(TREE, { body }), ['name']);
    });

    it('answers 415 to a text/plain body, and to a body without a Content-Type', async () => {
      const before = await treeCount();
      const json = JSON.stringify({ name: 'Plain' });
      await expectError(await server.request(TREE, { body: json, headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
      const bare = await fetch(`${server.url}${TREE}`, {
        method: 'POST',
        body: new TextEncoder().encode(json),
        headers: { authorization: `Bearer ${server.token}`, accept: 'application/json' },
      });
      await expectError(bare, 415, 'unsupported_media_type');
      expect(await treeCount()).toBe(before);
    });

    it.each(['{"name":', '{name: "x"}', "{'name':'x'}", '[1,]'])('answers 400 to the malformed JSON %s', async (body) => {
      await expectError(await server.request(TREE, { body }), 400, 'bad_request');
    });

    it('accepts application/json with a charset', async () => {
      const response = await server.request(TREE, {
        body: { name: 'Charset' },
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(response.status).toBe(201);
    });

    it.each(['null', '[]', '"text"', '42', 'true'])('answers 422 errors.body to the JSON %s where an object is required', async (body) => {
      await expectValidationError(await server.request(TREE, { body }), ['body']);
    });

    it('answers 422 to a required body that is missing', async () => {
      await expectValidationError(await server.request(TREE, { method: 'POST' }), ['body']);
    });

    it('ignores __proto__ and constructor.prototype in a payload: nothing polluted, the server stays up', async () => {
      const key = uniqueName('proto');
      const response = await server.request(TREE, {
        body: `{"__proto__": {"isAdmin": true, "parent_id": 1}, "constructor": {"prototype": {"isAdmin": true}}, "name": "Proto", "key": "${key}"}`,
      });
      expect(response.status).toBe(201);
      const created = await readJson(response);
      expect(created).toEqual({ id: expect.any(Number), name: 'Proto', key, parent_id: null });
      expect(({} as Json).isAdmin).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('isAdmin');
      expect(Object.prototype).not.toHaveProperty('parent_id');
      for (const element of await expectStatus(await server.request(TREE), 200)) {
        expect(Object.keys(element).sort()).toEqual(['id', 'key', 'name', 'parent_id']);
      }
      expect(await expectStatus(await server.request('/healthz', { token: false }), 200)).toEqual({ status: 'ok' });
    });

    it('does not let __proto__ supply a required field', async () => {
      const group = await createTreeElement(server);
      const before = await cameraCount(server);
      const response = await server.request('/api/v2/billing/cameras', {
        body: `{"__proto__": {"group_id": ${group.id}}, "name": "Proto", "mac": "${randomMac()}"}`,
      });
      await expectValidationError(response, ['group_id']);
      expect(await cameraCount(server)).toBe(before);
      expect(Object.prototype).not.toHaveProperty('group_id');
    });
  });

  describe('500', () => {
    it('answers a failure with a short text body and no stack, and logs the details', async () => {
      const detail = uniqueName('kaboom-detail');
      const spy = vi.spyOn(server.vss.tree, 'listTreeElements').mockRejectedValueOnce(new TypeError(`${detail} at /srv/vss/secret.ts`));
      try {
        const response = await server.request(TREE, { headers: { 'content-type': 'application/json' } });
        expect(response.status).toBe(500);
        expect(response.headers.get('content-type')).toMatch(/^text\/plain\b/);
        const text = await response.text();
        expect(text).toBe('Internal Server Error');
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
      const logged = server.logs.find((line) => JSON.stringify(line).includes(detail));
      expect(logged).toMatchObject({ level: 'error', error: { name: 'TypeError', stack: expect.stringContaining(detail) } });
      expect((await server.request(TREE)).status).toBe(200);
    });
  });

  describe('system endpoints', () => {
    it('GET /healthz answers 200 {"status":"ok"} without a token', async () => {
      const response = await server.request('/healthz', { token: false });
      expect(response.status).toBe(200);
      expect(await readJson(response)).toEqual({ status: 'ok' });
    });

    it('GET /api/openapi.json answers 200 with every operation and its documented statuses', async () => {
      const response = await server.request('/api/openapi.json', { token: false });
      expect(response.status).toBe(200);
      const document = await readJson(response);
      expect(document.openapi).toMatch(/^3\.1\./);
      for (const operation of Object.values(operations) as Operation[]) {
        const described = document.paths?.[operation.path]?.[operation.method];
        expect(described, `${operation.method} ${operation.path}`).toBeDefined();
        expect(Object.keys(described.responses).sort()).toEqual(Object.keys(operation.responses).sort());
      }
      for (const path of ['/api/auth/token/api/', '/api/admin/v1/cameras/{camera}/analytic-cases/{analytic_case_camera}/restart/',
        '/api/admin/v1/intercoms/{intercom}/restart-intercom', '/api/v2/billing/cameras', '/api/']) {
        expect(document.paths).toHaveProperty([path, 'post']);
      }
    });
  });
});
