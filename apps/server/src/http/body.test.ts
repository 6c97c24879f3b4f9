import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createApp, createEvent, createRouter, defineEventHandler, toNodeListener } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonBody, readRawBody } from './body';
import { sendError } from './errors';
import { createLogger } from './log';

const LIMIT = 1024;
const logger = createLogger({ level: 'error', write: () => {} });

let server: Server;
let base: string;

beforeAll(async () => {
  const router = createRouter()
    .post('/json', defineEventHandler(async (event) => ({ body: (await readJsonBody(event, { limitBytes: LIMIT, required: false })) ?? 'none' })))
    .post('/required', defineEventHandler(async (event) => ({ body: await readJsonBody(event, { limitBytes: LIMIT, required: true }) })))
    .post('/mib', defineEventHandler((event) => readJsonBody(event, { limitBytes: 1024 * 1024, required: false })))
    .post('/raw', defineEventHandler(async (event) => ({ text: await readRawBody(event, LIMIT) })))
    .post(
      '/merge',
      defineEventHandler(async (event) => {
        const body = (await readJsonBody(event, { limitBytes: LIMIT, required: true })) as Record<string, unknown>;
        // What a careless handler might do with a payload; it must not reach Object.prototype.
        const merged = Object.assign({}, body, body.nested as object);
        return {
          keys: Object.keys(body),
          nestedKeys: Object.keys(body.nested as object),
          plainPrototype: Object.getPrototypeOf(body) === Object.prototype,
          mergedPolluted: 'polluted' in merged,
        };
      }),
    );
  const app = createApp({ onError: (error, event) => sendError(event, error, logger) }).use(router);
  server = createServer(toNodeListener(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, body: BodyInit | undefined, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', body, headers: { accept: 'application/json', ...headers }, duplex: 'half' } as RequestInit);

const json = { 'content-type': 'application/json' };

describe('readJsonBody', () => {
  it('parses a JSON body', async () => {
    const response = await post('/json', '{"a":[1,"x"]}', json);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ body: { a: [1, 'x'] } });
  });

  it('accepts +json types and a charset', async () => {
    const response = await post('/json', '{"a":1}', { 'content-type': 'application/merge-patch+json; charset=utf-8' });
    expect(await response.json()).toEqual({ body: { a: 1 } });
  });

  it('gives undefined for an empty body, and 422 when one is required', async () => {
    expect(await (await post('/json', undefined)).json()).toEqual({ body: 'none' });
    const response = await post('/required', undefined, json);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      message: 'The request body is required.',
      errors: { body: ['The request body is required.'] },
    });
  });

  it('refuses an announced Content-Length over the limit with 413 before reading', async () => {
    const response = await post('/json', JSON.stringify({ a: 'x'.repeat(LIMIT) }), json);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ message: 'The request body is larger than 1 KiB.', code: 'payload_too_large' });
  });

  it('names the limit in MiB', async () => {
    const response = await post('/mib', JSON.stringify({ a: 'x'.repeat(1024 * 1024) }), json);
    expect(response.status).toBe(413);
    expect((await response.json()).message).toBe('The request body is larger than 1 MiB.');
  });

  it('refuses an endless chunked body with 413 once it passes the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(400));
    // Never closed: the answer can only come from the server giving up on the body.
    const endless = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(chunk) });
    const response = await post('/json', endless, json);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
  });

  it('refuses a body that is not declared as JSON with 415', async () => {
    const response = await post('/json', '{"a":1}', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      message: 'The request body must be JSON (Content-Type: application/json).',
      code: 'unsupported_media_type',
    });
  });

  it('refuses a body without a Content-Type with 415', async () => {
    const response = await post('/json', new TextEncoder().encode('{"a":1}'));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.status).toBe(415);
  });

  it('refuses malformed JSON with 400', async () => {
    const response = await post('/json', '{"a":', json);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'The request body is not valid JSON.', code: 'bad_request' });
  });

  it('drops __proto__ and constructor.prototype so no payload reaches a prototype', async () => {
    const payload =
      '{"__proto__":{"polluted":1},"safe":1,"nested":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"ok":2}}';
    const response = await post('/merge', payload, json);
    expect(await response.json()).toEqual({
      keys: ['safe', 'nested'],
      nestedKeys: ['ok'],
      plainPrototype: true,
      mergedPolluted: false,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('readRawBody', () => {
  it('returns the text as sent, whatever its type, without a BOM', async () => {
    const response = await post('/raw', '\uFEFF{"jsonrpc":', { 'content-type': 'text/plain' });
    expect(await response.json()).toEqual({ text: '{"jsonrpc":' });
  });

  it('stops reading an endless body as soon as it passes the limit', async () => {
    let produced = 0;
    const req = Object.assign(
      new Readable({
        read() {
          produced += 256;
          this.push(Buffer.alloc(256, 0x20));
        },
      }),
      { headers: {} },
    );
    const event = createEvent(req as unknown as IncomingMessage, {} as ServerResponse);
    await expect(readRawBody(event, LIMIT)).rejects.toMatchObject({ code: 'payload_too_large' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Paused: at most what was buffered ahead (one highWaterMark) is produced after the refusal.
    expect(produced).toBeLessThan(LIMIT + 16 * 1024 + 512);
    expect(req.isPaused()).toBe(true);
  });
});
