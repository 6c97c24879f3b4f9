import { afterEach, describe, expect, it } from 'vitest';
import { VssError } from '../../errors';
import { startFakeOnvifDevice, type FakeOnvifDevice } from '../../testing/onvif-device';
import { completeStreamUri, resolveOnvifStreamUris } from './streams';

const login = 'onvif-user';
const password = 'Pa55-w0rd-kept-secret';

describe('resolveOnvifStreamUris', () => {
  let device: FakeOnvifDevice | undefined;
  afterEach(async () => {
    await device?.close();
    device = undefined;
  });

  const target = (fake: FakeOnvifDevice, overrides: { login?: string; password?: string } = {}) => ({
    host: fake.host,
    port: fake.port,
    login,
    password,
    ...overrides,
  });

  const rejectionOf = async (promise: Promise<unknown>): Promise<VssError> => {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(VssError);
    return error as VssError;
  };

  it('takes the first profile as high and the second as low, asking the advertised media path', async () => {
    device = await startFakeOnvifDevice({
      login,
      password,
      profiles: [
        { token: 'main', name: 'Main', uri: 'rtsp://10.1.2.3:554/main?a=1&b=2' },
        { token: 'sub', name: 'Sub', uri: 'rtsp://10.1.2.3:554/sub' },
        { token: 'third', name: 'Third', uri: 'rtsp://10.1.2.3:554/third' },
      ],
    });
    const uris = await resolveOnvifStreamUris(target(device));
    expect(uris).toEqual({
      high: `rtsp://${login}:${password}@10.1.2.3:554/main?a=1&b=2`,
      low: `rtsp://${login}:${password}@10.1.2.3:554/sub`,
    });
    expect(device.operations()).toEqual([
      'GetSystemDateAndTime',
      'GetCapabilities',
      'GetProfiles',
      'GetStreamUri',
      'GetStreamUri',
    ]);
  });

  it('uses the only profile for both streams', async () => {
    device = await startFakeOnvifDevice({ login, password, profiles: [{ token: 'only', name: 'Only', uri: 'rtsp://10.1.2.3/only' }] });
    const uris = await resolveOnvifStreamUris(target(device));
    expect(uris.high).toBe(`rtsp://${login}:${password}@10.1.2.3/only`);
    expect(uris.low).toBe(uris.high);
  });

  it('percent-encodes the credentials it adds and keeps credentials the device gave', async () => {
    const awkward = { login: 'us:er@x', password: 'p@ss:w/rd%41?#' };
    device = await startFakeOnvifDevice({
      ...awkward,
      profiles: [
        { token: 'a', name: 'A', uri: 'rtsp://10.1.2.3/a' },
        { token: 'b', name: 'B', uri: 'rtsp://viewer:own@10.1.2.3/b' },
      ],
    });
    const uris = await resolveOnvifStreamUris(target(device, awkward));
    const high = new URL(uris.high);
    expect(high.host).toBe('10.1.2.3');
    expect(decodeURIComponent(high.username)).toBe(awkward.login);
    expect(decodeURIComponent(high.password)).toBe(awkward.password);
    expect(uris.high).toBe('rtsp://us%3Aer%40x:p%40ss%3Aw%2Frd%2541%3F%23@10.1.2.3/a');
    expect(uris.low).toBe('rtsp://viewer:own@10.1.2.3/b');
  });

  it('replaces an address the device cannot know with the one it was reached at', async () => {
    device = await startFakeOnvifDevice({ login, password });
    const uris = await resolveOnvifStreamUris(target(device));
    expect(uris.high).toBe(
      `rtsp://${login}:${password}@127.0.0.1:554/Streaming/Channels/101?transportmode=unicast&profile=Profile_1`,
    );
    expect(new URL(uris.low).pathname).toBe('/Streaming/Channels/102');
  });

  it('signs in the device clock, so a camera hours off still accepts the token', async () => {
    device = await startFakeOnvifDevice({ login, password, clockOffsetMs: -5 * 3600_000 });
    await expect(resolveOnvifStreamUris(target(device))).resolves.toMatchObject({ high: expect.stringMatching(/^rtsp:/) });
  });

  it('reports a wrong password as device_error without the credentials', async () => {
    device = await startFakeOnvifDevice({ login, password });
    const wrong = 'not-the-password';
    const error = await rejectionOf(resolveOnvifStreamUris(target(device, { password: wrong })));
    expect(error.code).toBe('device_error');
    expect(error.message).toBe('The camera refused the login or password (SOAP fault NotAuthorized).');
  });

  it.each(['refuse', 'garbage', 'fail-status', 'huge'] as const)('reports %s as device_error', async (behaviour) => {
    device = await startFakeOnvifDevice({ login, password, behaviour });
    const error = await rejectionOf(resolveOnvifStreamUris(target(device)));
    expect(error.code).toBe('device_error');
    expect(error.message).not.toMatch(/policy|trouble|Welcome/i);
  });

  it('reports a camera that never answers as device_timeout', async () => {
    device = await startFakeOnvifDevice({ login, password, behaviour: 'hang' });
    const error = await rejectionOf(resolveOnvifStreamUris(target(device), { timeoutMs: 200 }));
    expect(error.code).toBe('device_timeout');
    expect(error.message).toBe('The camera did not answer within 200 ms.');
  });

  it('refuses a camera without profiles', async () => {
    device = await startFakeOnvifDevice({ login, password, profiles: [] });
    await expect(resolveOnvifStreamUris(target(device))).rejects.toMatchObject({
      code: 'device_error',
      message: 'The camera has no ONVIF media profile.',
    });
  });

  it('refuses a stream address that is not RTSP', async () => {
    device = await startFakeOnvifDevice({ login, password, profiles: [{ token: 'p', name: 'P', uri: 'http://10.1.2.3/x' }] });
    await expect(resolveOnvifStreamUris(target(device))).rejects.toMatchObject({ code: 'device_error' });
  });
});

describe('completeStreamUri', () => {
  it.each(['::1', '[::1]'])('brackets an IPv6 address (%s) put in place of an unroutable host', (host) => {
    expect(completeStreamUri('rtsp://[::]:554/live', { host, port: 80, login: '', password: '' })).toBe('rtsp://[::1]:554/live');
    expect(completeStreamUri('rtsp://localhost/live', { host, port: 80, login: 'a', password: 'b' })).toBe('rtsp://a:b@[::1]/live');
  });
});
