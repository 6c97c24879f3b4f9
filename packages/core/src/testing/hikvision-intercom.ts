import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the fake answers an authenticated reboot: 'ok' accepts it; 'refuse' answers 403; 'hang' never
 * answers; 'garbage' answers 200 with text that is not XML; 'huge' streams a 200 body of 2 MiB;
 * 'fail-status' answers 200 with an ISAPI failure status.
 */
export type FakeHikvisionBehaviour = 'ok' | 'refuse' | 'hang' | 'garbage' | 'huge' | 'fail-status';

export interface FakeHikvisionIntercom {
  host: string;
  port: number;
  /** Reboots the device accepted, i.e. authenticated reboot requests answered under 'ok'. */
  rebootCount(): number;
  setBehaviour(behaviour: FakeHikvisionBehaviour): void;
  /** Stops the server and drops every connection, hung ones included. */
  close(): Promise<void>;
}

const REALM = 'IP Camera(E1234)';
const REBOOT_PATH = '/ISAPI/System/reboot';
const HUGE_BODY_BYTES = 2 * 1024 * 1024;

const md5 = (value: string) => createHash('md5').update(value, 'utf8').digest('hex');

const responseStatus = (statusCode: number, statusString: string, subStatusCode: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><ResponseStatus version="2.0" xmlns="http://www.hikvision.com/ver20/XMLSchema">' +
  `<requestURL>${REBOOT_PATH}</requestURL><statusCode>${statusCode}</statusCode><statusString>${statusString}</statusString>` +
  `<subStatusCode>${subStatusCode}</subStatusCode></ResponseStatus>`;

/** Parses the parameters of a Digest `Authorization` value; kept apart from the driver's own parser on purpose. */
function digestParams(header: string): Record<string, string> | undefined {
  const match = /^Digest\s+(.*)$/is.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const [, name, quoted, bare] of (match[1] ?? '').matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g)) {
    params[(name ?? '').toLowerCase()] = quoted === undefined ? (bare ?? '') : quoted.replace(/\\(.)/g, '$1');
  }
  return params;
}

/**
 * A Hikvision intercom on 127.0.0.1 speaking ISAPI: it challenges every request with MD5 Digest
 * (qop="auth"), checks the answer against its own login and password, and handles
 * `PUT /ISAPI/System/reboot` as `behaviour` says.
 */
export async function startFakeHikvisionIntercom(options: {
  login: string;
  password: string;
  behaviour?: FakeHikvisionBehaviour;
}): Promise<FakeHikvisionIntercom> {
  let behaviour = options.behaviour ?? 'ok';
  let reboots = 0;
  const opaque = randomBytes(16).toString('hex');
  const nonces = new Set<string>();

  const challenge = (res: ServerResponse) => {
    const nonce = randomBytes(16).toString('hex');
    nonces.add(nonce);
    res.writeHead(401, {
      'WWW-Authenticate': `Digest realm="${REALM}", qop="auth", nonce="${nonce}", opaque="${opaque}", stale="FALSE"`,
      'Content-Type': 'application/xml',
    });
    res.end(
      '<?xml version="1.0" encoding="UTF-8"?><userCheck><statusValue>401</statusValue><statusString>Unauthorized</statusString></userCheck>',
    );
  };

  const authenticated = (req: IncomingMessage): boolean => {
    const params = digestParams(req.headers.authorization ?? '');
    if (!params) return false;
    const { username, realm, nonce = '', uri, qop, nc = '', cnonce = '', response } = params;
    if (username !== options.login || realm !== REALM || !nonces.has(nonce) || params.opaque !== opaque) return false;
    if (uri !== req.url || qop !== 'auth' || !/^[0-9a-f]{8}$/i.test(nc) || cnonce === '') return false;
    if ((params.algorithm ?? 'MD5').toUpperCase() !== 'MD5') return false;
    const ha1 = md5(`${options.login}:${REALM}:${options.password}`);
    const ha2 = md5(`${req.method}:${uri}`);
    return response === md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`);
  };

  const answer = (res: ServerResponse, status: number, body: string, contentType = 'application/xml') => {
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  // The padding ends in a valid "OK", so a client that reads past its cap would wrongly succeed.
  const streamHuge = (res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    const chunk = Buffer.alloc(64 * 1024, ' ');
    let sent = 0;
    const pump = () => {
      while (sent < HUGE_BODY_BYTES) {
        if (res.destroyed) return;
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end(responseStatus(1, 'OK', 'ok'));
    };
    pump();
  };

  const server = createServer((req, res) => {
    req.resume();
    if (!authenticated(req)) return challenge(res);
    if (req.url !== REBOOT_PATH) return answer(res, 404, responseStatus(4, 'Invalid Operation', 'notSupport'));
    if (req.method !== 'PUT') return answer(res, 405, responseStatus(4, 'Invalid Operation', 'methodNotAllowed'));
    switch (behaviour) {
      case 'ok':
        reboots++;
        return answer(res, 200, responseStatus(1, 'OK', 'ok'));
      case 'refuse':
        return answer(res, 403, responseStatus(4, 'Invalid Operation', 'lowPrivilege'));
      case 'hang':
        return;
      case 'garbage':
        return answer(res, 200, 'Welcome to the web service! This is not XML at all.', 'text/plain');
      case 'huge':
        return streamHuge(res);
      case 'fail-status':
        return answer(res, 200, responseStatus(6, 'Invalid Content', 'badXmlContent'));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    rebootCount: () => reboots,
    setBehaviour: (next) => {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
