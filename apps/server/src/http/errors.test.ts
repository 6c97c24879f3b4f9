import { type IncomingMessage, ServerResponse } from 'node:http';
import { VssError } from '@vss/core';
import { ERROR_CODES, type ErrorCode } from '@vss/schema';
import { createError, createEvent } from 'h3';
import { describe, expect, it } from 'vitest';
import { sendError, toErrorResponse } from './errors';
import { createLogger, type LogFields } from './log';
import { httpStatus } from './status';

function recordingLogger() {
  const lines: LogFields[] = [];
  return { lines, logger: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) }) };
}

describe('toErrorResponse', () => {
  const { logger } = recordingLogger();

  it.each(ERROR_CODES.filter((code) => code !== 'internal'))('answers %s with its status', (code: ErrorCode) => {
    expect(toErrorResponse(new VssError(code, 'Nope.'), logger).status).toBe(httpStatus(code));
  });

  it('gives validation failures their errors map', () => {
    const error = new VssError('validation_failed', 'The name field is required.', { errors: { name: ['The name field is required.'] } });
    expect(toErrorResponse(error, logger)).toEqual({
      status: 422,
      body: { message: 'The name field is required.', errors: { name: ['The name field is required.'] } },
      headers: {},
    });
  });

  it('answers unauthenticated with the fixed message', () => {
    expect(toErrorResponse(new VssError('unauthenticated', 'Token expired.'), logger).body).toEqual({ message: 'Unauthenticated.' });
  });

  it('gives other codes message and code, and copies the error’s headers', () => {
    const error = new VssError('gone', 'v1 is retired.', { headers: { Sunset: 'Sat, 21 May 2027 00:00:00 GMT' } });
    expect(toErrorResponse(error, logger)).toEqual({
      status: 410,
      body: { message: 'v1 is retired.', code: 'gone' },
      headers: { Sunset: 'Sat, 21 May 2027 00:00:00 GMT' },
    });
  });

  it('unwraps the H3Error h3 puts around a thrown VssError', () => {
    const wrapped = createError(new VssError('forbidden', 'Only from the console.'));
    expect(toErrorResponse(wrapped, logger)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  });

  it('maps h3’s own 404 and 405 without echoing its message', () => {
    const notFound = createError({ statusCode: 404, statusMessage: 'Cannot find any path matching /secret?token=abc.' });
    expect(toErrorResponse(notFound, logger)).toEqual({ status: 404, body: { message: 'Not Found.', code: 'not_found' }, headers: {} });
    const notAllowed = createError({ statusCode: 405, statusMessage: 'Method Not Allowed' });
    expect(toErrorResponse(notAllowed, logger).body).toEqual({ message: 'Method Not Allowed.', code: 'method_not_allowed' });
  });

  it('answers anything else with a plain 500 and logs the error with its stack', () => {
    const { lines, logger } = recordingLogger();
    for (const error of [new TypeError('x is undefined at /srv/secret.ts'), createError(new Error('boom')), new VssError('internal', 'oops'), 'a string']) {
      const response = toErrorResponse(error, logger);
      expect(response).toEqual({ status: 500, body: 'Internal Server Error', headers: {} });
    }
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ level: 'error', error: { name: 'TypeError', message: 'x is undefined at /srv/secret.ts' } });
    expect((lines[0]!.error as { stack: string }).stack).toContain('errors.test.ts');
    expect(lines[1]).toMatchObject({ error: { message: 'boom' } });
  });
});

function send(error: unknown, headers: Record<string, string>) {
  const req = { method: 'GET', url: '/', headers, socket: {} } as unknown as IncomingMessage;
  const res = new ServerResponse(req);
  // What h3's toNodeListener does before calling onError.
  res.statusMessage = 'Cannot find any path matching /x?token=abc.';
  let body = '';
  res.end = ((chunk: string) => {
    body = chunk;
    return res;
  }) as ServerResponse['end'];
  sendError(createEvent(req, res), error, recordingLogger().logger);
  return { status: res.statusCode, reason: res.statusMessage, type: res.getHeader('content-type'), header: (name: string) => res.getHeader(name), body };
}

describe('sendError', () => {
  const error = new VssError('not_found', 'Camera <b>7</b> not found.', { headers: { 'X-Reason': 'r' } });

  it('writes JSON when the client prefers it', () => {
    const sent = send(error, { accept: 'application/json' });
    expect(sent).toMatchObject({ status: 404, type: 'application/json' });
    expect(JSON.parse(sent.body)).toEqual({ message: 'Camera <b>7</b> not found.', code: 'not_found' });
    expect(sent.header('x-reason')).toBe('r');
  });

  it('writes an escaped HTML page with the same status otherwise', () => {
    const sent = send(error, { accept: 'text/html' });
    expect(sent).toMatchObject({ status: 404, type: 'text/html; charset=utf-8' });
    expect(sent.body).toContain('<h1>404 Not Found</h1>');
    expect(sent.body).toContain('Camera &lt;b&gt;7&lt;/b&gt; not found.');
  });

  it('replaces the reason phrase h3 set, which may quote the path', () => {
    expect(send(createError({ statusCode: 404 }), {})).toMatchObject({ status: 404, reason: 'Not Found' });
  });

  it('writes a 500 as short plain text even to a JSON client, with no stack', () => {
    const sent = send(new Error('secret detail'), { 'content-type': 'application/json' });
    expect(sent).toMatchObject({ status: 500, type: 'text/plain; charset=utf-8', body: 'Internal Server Error' });
  });
});
