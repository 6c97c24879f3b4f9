import { startFakeOnvifDevice, startRtspCameraServer, type FakeOnvifDevice, type RtspCameraServer } from '@vss/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getStream, streamStatus } from '../support/media';
import { createCamera, startTestServer, type TestServer } from '../support/server';

const LOGIN = 'admin';
const PASSWORD = 'Onvif-Secret-57';

describe('media ingest of a camera found over ONVIF (pglite)', () => {
  let camera: RtspCameraServer;
  let device: FakeOnvifDevice;
  let deviceClosed = false;
  let server: TestServer;
  let uuid: string;
  let mac: string;

  beforeAll(async () => {
    // The RTSP camera takes the ONVIF credentials, which the resolution puts into the URIs it answers.
    camera = await startRtspCameraServer({ login: LOGIN, password: PASSWORD });
    device = await startFakeOnvifDevice({
      login: LOGIN,
      password: PASSWORD,
      profiles: [
        { token: 'Profile_1', name: 'mainStream', uri: camera.url('main') },
        { token: 'Profile_2', name: 'subStream', uri: camera.url('sub') },
      ],
    });
    server = await startTestServer('pglite', { media: { segmentSeconds: 2, initialBackoffMs: 200, maxBackoffMs: 1_000 } });
    const created = await createCamera(server, {
      onvif_credentials: { login: LOGIN, password: PASSWORD, port: device.port },
      streams: [
        { type: 'high', is_archive_enabled: true, archive_storage_days: 1 },
        { type: 'low', is_archive_enabled: false },
      ],
    });
    uuid = created.uuid;
    mac = created.mac;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (!deviceClosed) await device?.close();
    await camera?.close();
  });

  it('creates the streams on the DHCP callback and resolves their RTSP addresses over ONVIF in the ingest', async () => {
    const response = await server.request('/api/v1/billing/streams', { body: { mac, ip: '127.0.0.1' } });
    expect(response.status).toBe(204);
    const high = await streamStatus(server, `${uuid}-high`, 'active');
    expect(high.url).toBe(`onvif://127.0.0.1:${device.port}/high`);
    expect(high.reconnection.attempts).toBe(0);
    expect((await getStream(server, `${uuid}-low`)).url).toBe(`onvif://127.0.0.1:${device.port}/low`);
    expect(device.operations()).toContain('GetStreamUri');
  });

  it('counts a failed resolution as a failed reconnection, without the password in the error', async () => {
    await device.close();
    deviceClosed = true;
    const uid = `${uuid}-high`;
    const rpc = await server.request('/api/', { body: { jsonrpc: '2.0', method: 'Stream.Restart', params: [uid], id: 1 } });
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'OK' });
    const failing = await eventually(
      async () => {
        const stream = await getStream(server, uid);
        return stream.reconnection.attempts >= 2 ? stream : undefined;
      },
      { what: 'failed ONVIF resolutions' },
    );
    expect(failing.status).not.toBe('active');
    expect(failing.reconnection.last_error).toMatch(/^ONVIF/);
    expect(failing.reconnection.last_error).not.toContain(PASSWORD);
    expect(JSON.stringify(server.logs)).not.toContain(PASSWORD);
  });
});
