import { createHash, randomBytes } from 'node:crypto';
import { Agent, request, type ClientRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { VssError } from '../../errors';

/** One parsed `WWW-Authenticate` challenge; parameter names are lower-cased. */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';

const HASHES: Record<DigestAlgorithm, string> = {
  MD5: 'md5',
  'MD5-sess': 'md5',
  'SHA-256': 'sha256',
  'SHA-256-sess': 'sha256',
};

export interface DigestResponseInput {
  algorithm: DigestAlgorithm;
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  /** Absent for the legacy RFC 2069 form, where the response covers only HA1, nonce and HA2. */
  qop?: 'auth';
  nc?: string;
  cnonce?: string;
}

/** The `response` value of RFC 7616 section 3.4.1. */
export function digestResponse(input: DigestResponseInput): string {
  const hash = (value: string) => createHash(HASHES[input.algorithm]).update(value, 'utf8').digest('hex');
  const cnonce = input.cnonce ?? '';
  let ha1 = hash(`${input.username}:${input.realm}:${input.password}`);
  if (input.algorithm.endsWith('-sess')) ha1 = hash(`${ha1}:${input.nonce}:${cnonce}`);
  const ha2 = hash(`${input.method}:${input.uri}`);
  if (input.qop === undefined) return hash(`${ha1}:${input.nonce}:${ha2}`);
  return hash(`${ha1}:${input.nonce}:${input.nc ?? ''}:${cnonce}:${input.qop}:${ha2}`);
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const SPACE = /[ \t]*/y;
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*(?=[ \t]*(?:,|$))/y;

/**
 * Parses a `WWW-Authenticate` value (RFC 9110 section 11.6.1). It may hold several challenges
 * separated by commas, and Node joins repeated header lines the same way.
 */
export function parseChallenges(header: string): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  let at = 0;
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const found = pattern.exec(header);
    if (!found) return undefined;
    at = pattern.lastIndex;
    return found[0];
  };
  const skipSeparators = () => {
    while (at < header.length && /[\s,]/.test(header[at] ?? '')) at++;
  };
  const quoted = (): string => {
    let value = '';
    at++;
    while (at < header.length && header[at] !== '"') {
      if (header[at] === '\\') at++;
      value += header[at] ?? '';
      at++;
    }
    at++;
    return value;
  };

  skipSeparators();
  while (at < header.length) {
    const scheme = match(TOKEN);
    if (scheme === undefined) {
      // Not a token (e.g. a token68 blob of a scheme we do not speak): skip to the next item.
      while (at < header.length && header[at] !== ',') at++;
      skipSeparators();
      continue;
    }
    const challenge: AuthChallenge = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(challenge);
    match(SPACE);
    // A scheme carries either one token68 blob (which no scheme we answer uses) or parameters.
    if (match(TOKEN68) !== undefined) {
      skipSeparators();
      continue;
    }
    skipSeparators();
    while (at < header.length) {
      const start = at;
      const name = match(TOKEN);
      match(SPACE);
      if (name === undefined || header[at] !== '=') {
        // A token without "=" starts the next challenge.
        at = start;
        break;
      }
      at++;
      match(SPACE);
      challenge.params[name.toLowerCase()] = header[at] === '"' ? quoted() : (match(TOKEN) ?? '');
      skipSeparators();
    }
  }
  return challenges;
}

const quote = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

function digestAlgorithm(challenge: AuthChallenge): DigestAlgorithm | undefined {
  const named = challenge.params.algorithm ?? 'MD5';
  return (Object.keys(HASHES) as DigestAlgorithm[]).find((known) => known.toLowerCase() === named.toLowerCase());
}

/** Whether we can answer this Digest challenge: a known algorithm and, if qop is offered, "auth". */
function usableDigest(challenge: AuthChallenge): boolean {
  if (challenge.scheme !== 'digest' || challenge.params.nonce === undefined) return false;
  if (digestAlgorithm(challenge) === undefined) return false;
  const qop = challenge.params.qop;
  return qop === undefined || qop.split(',').some((option) => option.trim().toLowerCase() === 'auth');
}

export interface Credentials {
  login: string;
  password: string;
}

/**
 * The `Authorization` value answering the first challenge we can meet. Digest is preferred; Basic is
 * used only when the server offers nothing better, since it sends the password in the clear.
 * Servers list stronger Digest algorithms first (RFC 7616 section 3.7), so the first usable one wins.
 */
export function answerChallenges(
  challenges: AuthChallenge[],
  credentials: Credentials,
  method: string,
  uri: string,
  cnonce: string = randomBytes(16).toString('hex'),
): string | undefined {
  const digest = challenges.find(usableDigest);
  if (digest) {
    const algorithm = digestAlgorithm(digest) as DigestAlgorithm;
    const { realm = '', nonce = '', opaque } = digest.params;
    const qop = digest.params.qop === undefined ? undefined : 'auth';
    const nc = '00000001';
    const response = digestResponse({
      algorithm,
      username: credentials.login,
      realm,
      password: credentials.password,
      method,
      uri,
      nonce,
      ...(qop ? { qop, nc, cnonce } : {}),
    });
    const fields = [
      `username=${quote(credentials.login)}`,
      `realm=${quote(realm)}`,
      `nonce=${quote(nonce)}`,
      `uri=${quote(uri)}`,
      `algorithm=${algorithm}`,
      `response=${quote(response)}`,
      ...(qop ? [`qop=${qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`] : []),
      ...(opaque === undefined ? [] : [`opaque=${quote(opaque)}`]),
    ];
    return `Digest ${fields.join(', ')}`;
  }
  if (challenges.some((challenge) => challenge.scheme === 'basic')) {
    return `Basic ${Buffer.from(`${credentials.login}:${credentials.password}`, 'utf8').toString('base64')}`;
  }
  return undefined;
}

export interface DeviceRequest extends Credentials {
  /** A host name or IP address; an IPv6 address may be bracketed as in a URL (`[::1]`). */
  host: string;
  port: number;
  method: string;
  /** The request target, e.g. `/ISAPI/System/reboot`. */
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string;
  /** The budget for the whole exchange, challenge round trip included. */
  timeoutMs: number;
  maxBodyBytes: number;
  signal?: AbortSignal;
  /** How error messages name the device, e.g. "intercom". */
  device: string;
}

export interface DeviceResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function formatSize(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * Performs one HTTP request authenticated the way the device asks (Digest, or Basic if that is all
 * it offers). The first attempt carries no credentials, so nothing is sent before the device says
 * how it wants them. Any non-401 answer, or the answer to the authenticated retry, is returned
 * whatever its status; failures to get an answer become VssError `device_error` / `device_timeout`,
 * and an abort by the caller rejects with the caller's reason.
 */
export async function deviceRequest(options: DeviceRequest): Promise<DeviceResponse> {
  options.signal?.throwIfAborted();
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new VssError('device_timeout', `The ${options.device} did not answer within ${formatDuration(options.timeoutMs)}.`),
      ),
    options.timeoutMs,
  );
  const forwardAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', forwardAbort, { once: true });
  // One socket for both round trips, closed when we are done: devices are small and keep-alive
  // saves them a second handshake, but nothing may linger after the exchange.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await exchange(options, agent, controller.signal);
    if (first.status !== 401) return first;
    const challenges = parseChallenges(first.headers['www-authenticate'] ?? '');
    const authorization = answerChallenges(challenges, options, options.method, options.path);
    if (authorization === undefined) {
      throw new VssError('device_error', `The ${options.device} asked for an authentication method VSS does not support.`);
    }
    return await exchange(options, agent, controller.signal, authorization);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', forwardAbort);
    agent.destroy();
  }
}

function exchange(
  options: DeviceRequest,
  agent: Agent,
  signal: AbortSignal,
  authorization?: string,
): Promise<DeviceResponse> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(options.body ?? '', 'utf8');
    let req: ClientRequest | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    // A failed exchange leaves its socket in an unknown state, so it is destroyed rather than reused.
    const refuse = (error: unknown) =>
      settle(() => {
        req?.destroy();
        reject(error);
      });
    const fail = (error: unknown) => refuse(signal.aborted ? signal.reason : networkError(options.device, error));
    const tooBig = () =>
      refuse(new VssError('device_error', `The ${options.device}'s answer was larger than ${formatSize(options.maxBodyBytes)}.`));
    const cutShort = () =>
      refuse(signal.aborted ? signal.reason : new VssError('device_error', `The ${options.device} broke off its answer.`));
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) return onAbort();

    try {
      req = request({
        host: options.host.replace(/^\[(.*)\]$/, '$1'),
        port: options.port,
        method: options.method,
        path: options.path,
        agent,
        headers: {
          ...options.headers,
          'content-length': body.length,
          ...(authorization === undefined ? {} : { authorization }),
        },
      });
    } catch (error) {
      // Node refuses some requests before sending anything, e.g. a port out of range or a
      // control character in a header built from the credentials.
      return fail(error);
    }
    req.on('response', (res) => {
      if (Number(res.headers['content-length']) > options.maxBodyBytes) return tooBig();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBodyBytes) return tooBig();
        chunks.push(chunk);
      });
      res.on('end', () =>
        settle(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })),
      );
      res.on('error', cutShort);
      res.on('close', cutShort);
    });
    req.on('error', fail);
    req.end(body);
  });
}

function networkError(device: string, error: unknown): VssError {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  if (code === 'ECONNREFUSED') return new VssError('device_error', `The ${device} refused the connection.`);
  if (typeof code === 'string' && code.startsWith('HPE_')) {
    return new VssError('device_error', `The ${device} answered with malformed HTTP.`);
  }
  // Only system errors (which name a syscall) carry a code worth showing, such as EHOSTUNREACH.
  if (typeof code === 'string' && typeof syscall === 'string') {
    return new VssError('device_error', `The ${device} could not be reached (${code}).`);
  }
  return new VssError('device_error', `The ${device} could not be reached.`);
}
