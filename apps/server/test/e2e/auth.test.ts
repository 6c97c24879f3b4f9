import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiTokenId,
  createClock,
  expectStatus,
  expectUnauthenticated,
  expectValidationError,
  issueApiToken,
  logText,
  postStream,
  readJson,
  uniqueName,
} from '../support/fixtures';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

const ISSUE = '/api/auth/token/api/';
const ACCESS = '/api/auth/token/access/';
/** Any authenticated route will do; this one needs no data. */
const AUTHENTICATED = '/api/admin/v1/tree-elements';

describe.each(databaseKinds(process.env.DATABASE_URL))('auth on %s', (kind) => {
  const clock = createClock(new Date('2027-01-10T12:00:00Z'));
  let server: TestServer;
  let streamUid: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { now: clock.now });
    const camera = await createCamera(server);
    streamUid = uniqueName('auth-stream');
    await expectStatus(await postStream(server, camera.id, { type: 'high', url: 'rtsp://192.0.2.1/live', uid: streamUid }), 201);
  });
  afterAll(() => server?.stop());

  const withToken = (token: string | false) => server.request(AUTHENTICATED, { token });

  describe('POST /api/auth/token/api/', () => {
    it('answers 200 from loopback with the token as a bare JSON string that authenticates', async () => {
      const response = await server.request(ISSUE, { body: { client: uniqueName('cli'), duration: 3600 }, token: false });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(text.startsWith('"') && text.endsWith('"')).toBe(true);
      const token = JSON.parse(text) as string;
      expect(token.length).toBeGreaterThanOrEqual(20);
      expect((await withToken(token)).status).toBe(200);
    });

    it.each(['X-Forwarded-For', 'Forwarded', 'X-Real-IP'])('answers 403 from loopback with a %s header', async (header) => {
      const client = uniqueName('proxied');
      const response = await server.request(ISSUE, {
        body: { client, duration: 0 },
        token: false,
        headers: { [header]: header === 'Forwarded' ? 'for=127.0.0.1' : '127.0.0.1' },
      });
      expect(response.status).toBe(403);
      expect(await readJson(response)).toMatchObject({ code: 'forbidden', message: expect.any(String) });
      const issued = await server.vss.tokens.listApiTokens();
      expect(issued.some((token) => token.client === client)).toBe(false);
    });

    it.each([
      ['a missing client', { duration: 60 }, 'client'],
      ['a negative duration', { client: 'c', duration: -1 }, 'duration'],
      ['a fractional duration', { client: 'c', duration: 1.5 }, 'duration'],
      ['a duration given as a string', { client: 'c', duration: '60' }, 'duration'],
    ])('answers 422 for %s', async (_, body, field) => {
      const response = await server.request(ISSUE, { body, token: false });
      const { errors } = await expectValidationError(response, [field]);
      expect(Object.keys(errors)).toEqual([field]);
    });

    it('gives duration 0 a token that never expires', async () => {
      const client = uniqueName('forever');
      const token = await issueApiToken(server, client, 0);
      const info = (await server.vss.tokens.listApiTokens()).find((entry) => entry.client === client);
      expect(info?.expires_at).toBeNull();
      clock.advance(10 * 365 * 24 * 3600 * 1000);
      try {
        expect((await withToken(token)).status).toBe(200);
      } finally {
        clock.advance(-10 * 365 * 24 * 3600 * 1000);
      }
    });

    it('gives duration 1 a token that stops working once its second has passed', async () => {
      const token = await issueApiToken(server, uniqueName('short'), 1);
      expect((await withToken(token)).status).toBe(200);
      clock.advance(999);
      expect((await withToken(token)).status).toBe(200);
      clock.advance(1001);
      await expectUnauthenticated(await withToken(token));
    });
  });

  describe('401 on an authenticated route', () => {
    it('without a token', async () => {
      await expectUnauthenticated(await withToken(false));
    });

    it('with an unknown token', async () => {
      await expectUnauthenticated(await withToken(`${server.token}x`));
      await expectUnauthenticated(await withToken('not-a-token'));
    });

    it('with a revoked token', async () => {
      const client = uniqueName('revoked');
      const token = await issueApiToken(server, client, 0);
      expect((await withToken(token)).status).toBe(200);
      await server.vss.tokens.revokeApiToken(await apiTokenId(server, client));
      await expectUnauthenticated(await withToken(token));
    });

    it('with an expired token', async () => {
      const token = await issueApiToken(server, uniqueName('expired'), 60);
      clock.advance(61_000);
      await expectUnauthenticated(await withToken(token));
    });

    it('with another authorization scheme', async () => {
      const response = await server.request(AUTHENTICATED, { token: false, headers: { authorization: `Basic ${server.token}` } });
      await expectUnauthenticated(response);
    });
  });

  describe('token passing', () => {
    it('accepts Authorization: Bearer <token>', async () => {
      const response = await server.request(AUTHENTICATED, { token: false, headers: { authorization: `Bearer ${server.token}` } });
      expect(response.status).toBe(200);
    });

    it('accepts a bare Authorization: <token>', async () => {
      const response = await server.request(AUTHENTICATED, { token: false, headers: { authorization: server.token } });
      expect(response.status).toBe(200);
    });

    it('accepts ?token=<token>', async () => {
      const response = await server.request(`${AUTHENTICATED}?token=${encodeURIComponent(server.token)}`, { token: false });
      expect(response.status).toBe(200);
      await expectUnauthenticated(await server.request(`${AUTHENTICATED}?token=wrong`, { token: false }));
    });

    it('never writes a token to the log, and redacts ?token= in the access log', async () => {
      const token = await issueApiToken(server, uniqueName('logged'), 0);
      expect((await server.request(`${AUTHENTICATED}?token=${token}`, { token: false })).status).toBe(200);
      expect((await server.request(`${AUTHENTICATED}?page=1&token=${token}`, { token: false })).status).toBe(200);
      const access = await expectStatus(
        await server.request(ACCESS, { body: { uid: streamUid, user: 'viewer', duration: 60 }, token }),
        200,
      );
      const logs = logText(server);
      for (const secret of [server.token, token, access as string]) expect(logs).not.toContain(secret);
      const requestPaths = server.logs.filter((line) => line.msg === 'request').map((line) => String(line.path));
      expect(requestPaths).toContain(`${AUTHENTICATED}?token=[REDACTED]`);
      expect(requestPaths).toContain(`${AUTHENTICATED}?page=1&token=[REDACTED]`);
    });
  });

  describe('POST /api/auth/token/access/', () => {
    it('answers 200 with a bare JSON string for an existing stream uid', async () => {
      const response = await server.request(ACCESS, { body: { uid: streamUid, user: 'viewer-1', duration: 300 } });
      expect(response.status).toBe(200);
      const token = await readJson(response);
      expect(typeof token).toBe('string');
      expect(token.length).toBeGreaterThan(10);
      expect(server.vss.tokens.verifyAccessToken(token, streamUid)).toBe(true);
      expect(server.vss.tokens.verifyAccessToken(token, `${streamUid}-other`)).toBe(false);
    });

    it('answers 401 without an API token', async () => {
      await expectUnauthenticated(
        await server.request(ACCESS, { body: { uid: streamUid, user: 'viewer', duration: 0 }, token: false }),
      );
    });

    it.each([
      ['an unknown uid', { uid: 'no-such-stream', user: 'u', duration: 0 }, 'uid'],
      ['a uid with a slash', { uid: 'a/b', user: 'u', duration: 0 }, 'uid'],
      ['a uid with a space', { uid: 'a b', user: 'u', duration: 0 }, 'uid'],
      ['a missing user', { uid: 'whatever', duration: 0 }, 'user'],
    ])('answers 422 for %s', async (_, body, field) => {
      await expectValidationError(await server.request(ACCESS, { body }), [field]);
    });
  });
});
