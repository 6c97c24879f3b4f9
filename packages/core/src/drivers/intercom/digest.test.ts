import { createHash } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerChallenges, deviceRequest, digestResponse, parseChallenges } from './digest';

// RFC 7616 section 3.9.1.
const rfc7616 = {
  username: 'Mufasa',
  password: 'Circle of Life',
  realm: 'http-auth@example.org',
  method: 'GET',
  uri: '/dir/index.html',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  qop: 'auth',
  nc: '00000001',
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
} as const;

const md5 = (value: string) => createHash('md5').update(value).digest('hex');

describe('digestResponse', () => {
  it('matches the RFC 7616 MD5 example', () => {
    expect(digestResponse({ ...rfc7616, algorithm: 'MD5' })).toBe('8ca523f5e9506fed4657c9700eebdbec');
  });

  it('matches the RFC 7616 SHA-256 example', () => {
    expect(digestResponse({ ...rfc7616, algorithm: 'SHA-256' })).toBe(
      '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
    );
  });

  it('matches the RFC 2617 example', () => {
    const response = digestResponse({
      algorithm: 'MD5',
      username: 'Mufasa',
      password: 'Circle Of Life',
      realm: 'testrealm@host.com',
      method: 'GET',
      uri: '/dir/index.html',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      qop: 'auth',
      nc: '00000001',
      cnonce: '0a4f113b',
    });
    expect(response).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('leaves nc, cnonce and qop out of the legacy form', () => {
    const { username, realm, password, method, uri, nonce } = rfc7616;
    const ha1 = md5(`${username}:${realm}:${password}`);
    const ha2 = md5(`${method}:${uri}`);
    expect(digestResponse({ algorithm: 'MD5', username, realm, password, method, uri, nonce })).toBe(
      md5(`${ha1}:${nonce}:${ha2}`),
    );
  });

  it('folds the nonce and cnonce into HA1 for -sess algorithms', () => {
    const { username, realm, password, method, uri, nonce, nc, cnonce } = rfc7616;
    const ha1 = md5(`${md5(`${username}:${realm}:${password}`)}:${nonce}:${cnonce}`);
    const ha2 = md5(`${method}:${uri}`);
    expect(digestResponse({ ...rfc7616, algorithm: 'MD5-sess' })).toBe(
      md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`),
    );
  });
});

describe('parseChallenges', () => {
  it('reads the RFC 7616 example with two challenges in one header', () => {
    const header =
      `Digest realm="${rfc7616.realm}", qop="auth, auth-int", algorithm=SHA-256, nonce="${rfc7616.nonce}", ` +
      `opaque="${rfc7616.opaque}", Digest realm="${rfc7616.realm}", qop="auth, auth-int", algorithm=MD5, ` +
      `nonce="${rfc7616.nonce}", opaque="${rfc7616.opaque}"`;
    const challenges = parseChallenges(header);
    expect(challenges.map((challenge) => [challenge.scheme, challenge.params.algorithm])).toEqual([
      ['digest', 'SHA-256'],
      ['digest', 'MD5'],
    ]);
    expect(challenges[0]?.params).toMatchObject({ realm: rfc7616.realm, qop: 'auth, auth-int', opaque: rfc7616.opaque });
  });

  it('unescapes quoted strings and lower-cases names', () => {
    expect(parseChallenges('Basic Realm="a \\"quoted\\" realm", charset="UTF-8"')).toEqual([
      { scheme: 'basic', params: { realm: 'a "quoted" realm', charset: 'UTF-8' } },
    ]);
  });

  it('skips a token68 challenge and still finds the next one', () => {
    expect(parseChallenges('Negotiate abc/def==, Basic realm="x"').map((challenge) => challenge.scheme)).toEqual([
      'negotiate',
      'basic',
    ]);
  });
});

describe('answerChallenges', () => {
  const credentials = { login: rfc7616.username, password: rfc7616.password };

  it('answers the first usable Digest challenge with the RFC 7616 response', () => {
    const header =
      `Basic realm="x", Digest realm="${rfc7616.realm}", qop="auth-int, auth", algorithm=SHA-256, ` +
      `nonce="${rfc7616.nonce}", opaque="${rfc7616.opaque}"`;
    const answer = answerChallenges(parseChallenges(header), credentials, 'GET', rfc7616.uri, rfc7616.cnonce);
    expect(answer).toBe(
      `Digest username="Mufasa", realm="${rfc7616.realm}", nonce="${rfc7616.nonce}", uri="/dir/index.html", ` +
        'algorithm=SHA-256, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", ' +
        `qop=auth, nc=00000001, cnonce="${rfc7616.cnonce}", opaque="${rfc7616.opaque}"`,
    );
  });

  it('skips Digest challenges it cannot meet', () => {
    const header = 'Digest realm="r", nonce="n", algorithm=SHA-512-256, Digest realm="r", nonce="n", qop="auth-int"';
    expect(answerChallenges(parseChallenges(header), credentials, 'GET', '/')).toBeUndefined();
  });

  it('falls back to Basic only when that is what the server offers', () => {
    expect(answerChallenges(parseChallenges('Basic realm="device"'), credentials, 'GET', '/')).toBe(
      `Basic ${Buffer.from('Mufasa:Circle of Life').toString('base64')}`,
    );
    expect(answerChallenges(parseChallenges('Bearer realm="device"'), credentials, 'GET', '/')).toBeUndefined();
  });

  it('escapes quotes in the login', () => {
    const answer = answerChallenges(parseChallenges('Digest realm="r", nonce="n"'), { login: 'a"b', password: 'p' }, 'GET', '/');
    expect(answer).toContain('username="a\\"b"');
  });
});

describe('deviceRequest', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  async function listen(handler: RequestListener): Promise<number> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  const request = (port: number, timeoutMs = 2000) =>
    deviceRequest({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path: '/thing',
      login: 'user',
      password: 'secret',
      timeoutMs,
      maxBodyBytes: 1024,
      device: 'intercom',
    });

  /** A server that challenges once per request, then checks the answer with `verify`. */
  const challenging = (challenge: string, verify: (authorization: string) => boolean): RequestListener => {
    return (req, res) => {
      req.resume();
      const authorization = req.headers.authorization;
      if (authorization === undefined) return res.writeHead(401, { 'WWW-Authenticate': challenge }).end();
      res.writeHead(verify(authorization) ? 200 : 403).end('done');
    };
  };

  const param = (authorization: string, name: string) =>
    new RegExp(`${name}="?([^",]*)"?`).exec(authorization)?.[1] ?? '';

  it('answers a SHA-256 challenge the server can verify', async () => {
    const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
    const port = await listen(
      challenging('Digest realm="r", qop="auth", algorithm=SHA-256, nonce="abc"', (authorization) => {
        const ha1 = sha256('user:r:secret');
        const ha2 = sha256('PUT:/thing');
        const expected = sha256(`${ha1}:abc:${param(authorization, 'nc')}:${param(authorization, 'cnonce')}:auth:${ha2}`);
        return param(authorization, 'response') === expected;
      }),
    );
    const response = await request(port);
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('done');
  });

  it('answers a legacy challenge without qop', async () => {
    const port = await listen(
      challenging('Digest realm="r", nonce="abc"', (authorization) => {
        const expected = md5(`${md5('user:r:secret')}:abc:${md5('PUT:/thing')}`);
        return param(authorization, 'response') === expected && !authorization.includes('cnonce');
      }),
    );
    expect((await request(port)).status).toBe(200);
  });

  it('uses Basic when the server only offers Basic', async () => {
    const port = await listen(
      challenging('Basic realm="r"', (authorization) => authorization === `Basic ${Buffer.from('user:secret').toString('base64')}`),
    );
    expect((await request(port)).status).toBe(200);
  });

  it('prefers Digest when the server sends Basic and Digest on separate header lines', async () => {
    const port = await listen((req, res) => {
      req.resume();
      if (req.headers.authorization === undefined) {
        return res.writeHead(401, { 'WWW-Authenticate': ['Basic realm="r"', 'Digest realm="r", qop="auth", nonce="n"'] }).end();
      }
      res.writeHead(req.headers.authorization.startsWith('Digest ') ? 200 : 403).end();
    });
    expect((await request(port)).status).toBe(200);
  });

  it('refuses a challenge it cannot answer', async () => {
    const port = await listen(challenging('NTLM', () => true));
    await expect(request(port)).rejects.toMatchObject({
      code: 'device_error',
      message: 'The intercom asked for an authentication method VSS does not support.',
    });
  });

  it('returns the second 401 when the credentials are refused', async () => {
    const port = await listen((req, res) => {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Digest realm="r", nonce="n"' }).end();
    });
    expect((await request(port)).status).toBe(401);
  });

  it('counts the challenge round trip against the timeout', async () => {
    let requests = 0;
    const port = await listen((req, res) => {
      req.resume();
      requests++;
      if (requests === 1) {
        setTimeout(() => res.writeHead(401, { 'WWW-Authenticate': 'Digest realm="r", nonce="n"' }).end(), 150);
      }
    });
    await expect(request(port, 250)).rejects.toMatchObject({ code: 'device_timeout' });
    expect(requests).toBe(2);
  });

  it('caps the body of the challenge too', async () => {
    const port = await listen((req, res) => {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Digest realm="r", nonce="n"' });
      res.write('x'.repeat(800));
      res.end('x'.repeat(800));
    });
    await expect(request(port)).rejects.toMatchObject({ code: 'device_error' });
  });

  it('reports malformed HTTP as device_error', async () => {
    const tcp = createTcpServer((socket) => socket.resume().end('NOT HTTP AT ALL\r\n\r\n'));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    try {
      await expect(request((tcp.address() as AddressInfo).port)).rejects.toMatchObject({
        code: 'device_error',
        message: 'The intercom answered with malformed HTTP.',
      });
    } finally {
      await new Promise((resolve) => tcp.close(resolve));
    }
  });
});
