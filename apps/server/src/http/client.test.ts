import { describe, expect, it } from 'vitest';
import { extractToken, hasForwardingHeader, isConsoleRequest, isLoopbackPeer } from './client';
import { fakeEvent } from './fake-event';

describe('isLoopbackPeer', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])('%s is loopback', (remoteAddress) => {
    expect(isLoopbackPeer(fakeEvent({ remoteAddress }))).toBe(true);
  });

  it.each(['10.0.0.1', '128.0.0.1', '::2', '::ffff:10.0.0.1', '', undefined])('%s is not', (remoteAddress) => {
    expect(isLoopbackPeer(fakeEvent({ ...(remoteAddress === undefined ? {} : { remoteAddress }) }))).toBe(false);
  });
});

describe('isConsoleRequest', () => {
  it('is a loopback peer without any forwarding header', () => {
    expect(isConsoleRequest(fakeEvent({ remoteAddress: '127.0.0.1' }))).toBe(true);
    expect(isConsoleRequest(fakeEvent({ remoteAddress: '192.0.2.1' }))).toBe(false);
  });

  it.each(['Forwarded', 'X-Forwarded-For', 'X-Real-IP'])('is not with %s, even from loopback', (header) => {
    const event = fakeEvent({ remoteAddress: '127.0.0.1', headers: { [header]: '127.0.0.1' } });
    expect(hasForwardingHeader(event)).toBe(true);
    expect(isConsoleRequest(event)).toBe(false);
  });
});

describe('extractToken', () => {
  const token = (headers: Record<string, string>, url = '/') => extractToken(fakeEvent({ headers, url }));

  it('reads Authorization: Bearer, with any case of the scheme', () => {
    expect(token({ authorization: 'Bearer abc.def' })).toBe('abc.def');
    expect(token({ authorization: 'bearer   abc' })).toBe('abc');
  });

  it('reads a bare Authorization value', () => {
    expect(token({ authorization: 'abc.def' })).toBe('abc.def');
  });

  it('reads ?token=', () => {
    expect(token({}, '/api/?x=1&token=abc%2Bdef')).toBe('abc+def');
  });

  it('prefers the header to the query', () => {
    expect(token({ authorization: 'Bearer header' }, '/?token=query')).toBe('header');
  });

  it('gives undefined for empty values and other schemes', () => {
    expect(token({})).toBeUndefined();
    expect(token({ authorization: '' }, '/?token=')).toBeUndefined();
    expect(token({ authorization: 'Bearer ' })).toBeUndefined();
    expect(token({ authorization: 'Basic dXNlcjpwYXNz' })).toBeUndefined();
  });
});
