import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IntercomConformanceHarness } from '../drivers/intercom/conformance';
import type { IntercomDriver } from '../drivers/intercom/types';

// The pieces every fake intercom shares: the HTTP authentication the device demands, and one
// reboot endpoint that answers as the test tells it to. Each vendor's fake only supplies its path,
// its auth scheme and its own wording of each answer, so the fakes cannot drift apart in how they
// hang, stream an oversized body or count reboots.

/**
 * How a fake answers an authenticated reboot: 'ok' accepts it; 'refuse' answers an HTTP error;
 * 'hang' never answers; 'garbage' answers 200 with text the driver must not take for success;
 * 'huge' streams a 200 body of 2 MiB; 'fail-status' answers 200 with the vendor's own failure text.
 */
export type FakeIntercomBehaviour = 'ok' | 'refuse' | 'hang' | 'garbage' | 'huge' | 'fail-status';

export interface FakeIntercom {
  host: string;
  port: number;
  /** Reboots the device accepted, i.e. authenticated reboot requests answered under 'ok'. */
  rebootCount(): number;
  /** Every request seen, authenticated or not, as `METHOD target`, for checking what a driver sends. */
  requests(): string[];
  setBehaviour(behaviour: FakeIntercomBehaviour): void;
  /** Stops the server and drops every connection, hung ones included. */
  close(): Promise<void>;
}

interface Credentials {
  login: string;
  password: string;
}

/** What every fake intercom is started with. */
export interface FakeIntercomOptions extends Credentials {
  behaviour?: FakeIntercomBehaviour;
}

export interface FakeReply {
  status: number;
  body: string;
  contentType: string;
}

/** The authentication a fake demands before it looks at a request. */
export interface FakeAuth {
  accepts(req: IncomingMessage): boolean;
  challenge(res: ServerResponse): void;
}

export function reply(res: ServerResponse, { status, body, contentType }: FakeReply): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const md5 = (value: string) => createHash('md5').update(value, 'utf8').digest('hex');

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
 * MD5 Digest with qop="auth", as intercom firmware speaks it: only nonces this server issued are
 * honoured, so a client cannot skip the challenge round trip.
 */
export function digestAuth(
  { login, password }: Credentials,
  options: {
    realm: string;
    /** Extra challenge parameters some firmware sends, e.g. `stale="FALSE"`. */
    extraChallengeParams?: string;
    unauthorized: Omit<FakeReply, 'status'>;
  },
): FakeAuth {
  const { realm } = options;
  const opaque = randomBytes(16).toString('hex');
  const nonces = new Set<string>();
  return {
    challenge(res) {
      const nonce = randomBytes(16).toString('hex');
      nonces.add(nonce);
      const extra = options.extraChallengeParams === undefined ? '' : `, ${options.extraChallengeParams}`;
      res.setHeader('WWW-Authenticate', `Digest realm="${realm}", qop="auth", nonce="${nonce}", opaque="${opaque}"${extra}`);
      reply(res, { status: 401, ...options.unauthorized });
    },
    accepts(req) {
      const params = digestParams(req.headers.authorization ?? '');
      if (!params) return false;
      const { username, nonce = '', uri, qop, nc = '', cnonce = '', response } = params;
      if (username !== login || params.realm !== realm || !nonces.has(nonce) || params.opaque !== opaque) return false;
      if (uri !== req.url || qop !== 'auth' || !/^[0-9a-f]{8}$/i.test(nc) || cnonce === '') return false;
      if ((params.algorithm ?? 'MD5').toUpperCase() !== 'MD5') return false;
      const ha1 = md5(`${login}:${realm}:${password}`);
      const ha2 = md5(`${req.method}:${uri}`);
      return response === md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`);
    },
  };
}

/** HTTP Basic, which some intercom firmware still uses by default. */
export function basicAuth(
  { login, password }: Credentials,
  options: { realm: string; unauthorized: Omit<FakeReply, 'status'> },
): FakeAuth {
  const expected = `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`;
  return {
    challenge(res) {
      res.setHeader('WWW-Authenticate', `Basic realm="${options.realm}"`);
      reply(res, { status: 401, ...options.unauthorized });
    },
    accepts: (req) => req.headers.authorization === expected,
  };
}

const HUGE_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Answers 200 with more than a mebibyte of padding that ends in `ending`, a valid success answer,
 * so a client that reads past its cap would wrongly succeed.
 */
export function streamHugeBody(res: ServerResponse, contentType: string, ending: string): void {
  res.writeHead(200, { 'Content-Type': contentType });
  const chunk = Buffer.alloc(64 * 1024, ' ');
  let sent = 0;
  const pump = () => {
    while (sent < HUGE_BODY_BYTES) {
      if (res.destroyed) return;
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end(ending);
  };
  pump();
}

export interface FakeRebootEndpoint {
  method: string;
  /** The request target, query included, exactly as the driver must send it. */
  path: string;
  notFound: FakeReply;
  wrongMethod: FakeReply;
  /** What each behaviour answers; under 'huge' the success body comes after 2 MiB of padding. */
  replies: Record<'ok' | 'refuse' | 'garbage' | 'fail-status', FakeReply>;
}

/** A fake intercom on 127.0.0.1 that demands `auth` and serves one reboot endpoint. */
export async function startFakeRebootDevice(options: {
  auth: FakeAuth;
  endpoint: FakeRebootEndpoint;
  behaviour?: FakeIntercomBehaviour | undefined;
}): Promise<FakeIntercom> {
  const { auth, endpoint } = options;
  let behaviour = options.behaviour ?? 'ok';
  let reboots = 0;
  const requests: string[] = [];

  const server = createServer((req, res) => {
    req.resume();
    requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    if (!auth.accepts(req)) return auth.challenge(res);
    if (req.url !== endpoint.path) return reply(res, endpoint.notFound);
    if (req.method !== endpoint.method) return reply(res, endpoint.wrongMethod);
    switch (behaviour) {
      case 'hang':
        return;
      case 'huge':
        return streamHugeBody(res, endpoint.replies.ok.contentType, endpoint.replies.ok.body);
      case 'ok':
        reboots++;
        return reply(res, endpoint.replies.ok);
      default:
        return reply(res, endpoint.replies[behaviour]);
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
    requests: () => [...requests],
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

/**
 * A fresh fake started by `start` with `credentials`, wired for describeIntercomDriverConformance; the
 * fake's request log stays reachable for tests that check what the driver sent.
 */
export async function fakeIntercomHarness(
  start: (options: FakeIntercomOptions) => Promise<FakeIntercom>,
  driver: IntercomDriver,
  credentials: Credentials,
): Promise<IntercomConformanceHarness & Pick<FakeIntercom, 'requests'>> {
  const device = await start(credentials);
  const target = { host: device.host, port: device.port, ...credentials };
  return {
    driver,
    target,
    wrongPasswordTarget: { ...target, password: 'not-the-password' },
    setBehaviour: device.setBehaviour,
    rebootCount: device.rebootCount,
    requests: device.requests,
    close: device.close,
  };
}
