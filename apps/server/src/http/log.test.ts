import { describe, expect, it } from 'vitest';
import { fakeEvent } from './fake-event';
import { createLogger, redact, requestLogFields } from './log';

function capture(level: 'debug' | 'info' | 'warn' | 'error' = 'debug') {
  const writes: string[] = [];
  return { writes, logger: createLogger({ level, write: (line) => writes.push(line) }) };
}

describe('redact', () => {
  it('masks token query values only', () => {
    expect(redact('/api/?token=abc.def&x=1')).toBe('/api/?token=[REDACTED]&x=1');
    expect(redact('/play?uid=a&TOKEN=abc#t')).toBe('/play?uid=a&TOKEN=[REDACTED]#t');
    expect(redact('token=abc')).toBe('token=[REDACTED]');
    expect(redact('/x?access_token_count=3&mytoken=1')).toBe('/x?access_token_count=3&mytoken=1');
  });

  it('masks passwords in URLs, keeping the user and host', () => {
    expect(redact('connecting to rtsp://admin:s3cret@10.0.0.5:554/Streaming')).toBe('connecting to rtsp://admin:***@10.0.0.5:554/Streaming');
    expect(redact('rtsp://admin:p@ss@host/x')).toBe('rtsp://admin:***@host/x');
    expect(redact('postgres://vss:pw@db/vss and http://host:8080/path')).toBe('postgres://vss:***@db/vss and http://host:8080/path');
    expect(redact('rtsp://admin@host/x')).toBe('rtsp://admin@host/x');
  });
});

describe('createLogger', () => {
  it('writes one JSON object per call, time, level and msg first', () => {
    const { writes, logger } = capture();
    logger.info('camera created', { camera_id: 7 });
    logger.warn('two');
    expect(writes).toHaveLength(2);
    for (const line of writes) expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true);
    const entry = JSON.parse(writes[0]!);
    expect(Object.keys(entry)).toEqual(['time', 'level', 'msg', 'camera_id']);
    expect(entry).toMatchObject({ level: 'info', msg: 'camera created', camera_id: 7 });
    expect(new Date(entry.time).toISOString()).toBe(entry.time);
  });

  it('drops entries below its level', () => {
    const { writes, logger } = capture('warn');
    logger.debug('a');
    logger.info('b');
    logger.error('c');
    expect(writes.map((line) => JSON.parse(line).msg)).toEqual(['c']);
  });

  it('redacts the message and every string field, however deep', () => {
    const { writes, logger } = capture();
    logger.info('GET /api/?token=abc', { url: 'rtsp://u:pw@cam/1', nested: { list: ['/x?token=def'] }, token: 'ghi' });
    const line = writes[0]!;
    expect(line).not.toMatch(/abc|pw@|def|ghi/);
    expect(JSON.parse(line)).toMatchObject({ msg: 'GET /api/?token=[REDACTED]', url: 'rtsp://u:***@cam/1', token: '[REDACTED]' });
  });

  it('serialises errors as name, message and stack', () => {
    const { writes, logger } = capture();
    logger.error('failed', { error: new RangeError('connect rtsp://u:pw@cam failed') });
    const { error } = JSON.parse(writes[0]!);
    expect(Object.keys(error)).toEqual(['name', 'message', 'stack']);
    expect(error).toMatchObject({ name: 'RangeError', message: 'connect rtsp://u:***@cam failed' });
    expect(error.stack).not.toContain('pw@');
  });

  it('keeps its own keys and survives fields it cannot serialise', () => {
    const { writes, logger } = capture();
    logger.info('m', { level: 'fake', n: 10n });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    logger.info('still logged', { circular });
    expect(JSON.parse(writes[0]!)).toMatchObject({ level: 'info', n: '10' });
    expect(JSON.parse(writes[1]!)).toMatchObject({ msg: 'still logged', log_error: 'fields not serialisable' });
  });
});

describe('requestLogFields', () => {
  it('gives method, redacted path, status, duration and the peer address', () => {
    const event = fakeEvent({ method: 'POST', url: '/api/?token=abc', remoteAddress: '192.0.2.7', headers: { 'x-forwarded-for': '1.2.3.4' } });
    expect(requestLogFields(event, 200, 12.6)).toEqual({
      method: 'POST',
      path: '/api/?token=[REDACTED]',
      status: 200,
      duration_ms: 13,
      ip: '192.0.2.7',
    });
  });
});
