import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOnvifDevice } from '../../testing/onvif-device';
import { describeIntercomDriverConformance } from './conformance';
import { onvifIntercom } from './onvif';

const login = 'vss-operator';
const password = 'Pa55-w0rd-kept-secret';

describeIntercomDriverConformance('onvif', async () => {
  const device = await startFakeOnvifDevice({ login, password });
  const target = { host: device.host, port: device.port, login, password };
  return {
    driver: onvifIntercom({ timeoutMs: 300 }),
    target,
    wrongPasswordTarget: { ...target, password: 'not-the-password' },
    setBehaviour: device.setBehaviour,
    rebootCount: device.rebootCount,
    close: device.close,
  };
});

describe('onvifIntercom', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('is the onvif vendor', () => {
    expect(onvifIntercom().vendor).toBe('onvif');
  });

  it('names the fault code only', async () => {
    const device = await startFakeOnvifDevice({ login, password, behaviour: 'refuse' });
    try {
      const target = { host: device.host, port: device.port, login, password };
      await expect(onvifIntercom().reboot(target)).rejects.toThrow('The intercom refused SystemReboot (SOAP fault OperationProhibited).');
      device.setBehaviour('fail-status');
      await expect(onvifIntercom().reboot(target)).rejects.toThrow('The intercom refused SystemReboot (SOAP fault Action).');
    } finally {
      await device.close();
    }
  });

  /** A device that needs no authentication and answers every request with this envelope body. */
  async function plainDevice(body: string): Promise<number> {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/soap+xml' });
      res.end(`<?xml version="1.0"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope">${body}</s:Envelope>`);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('refuses a SOAP answer that is not a SystemRebootResponse', async () => {
    const port = await plainDevice('<s:Body/>');
    await expect(onvifIntercom().reboot({ host: '127.0.0.1', port, login, password })).rejects.toMatchObject({
      code: 'device_error',
      message: 'The intercom answered SystemReboot without a SystemRebootResponse.',
    });
  });

  it('accepts a SystemRebootResponse under any prefix', async () => {
    const port = await plainDevice(
      '<s:Body><x:SystemRebootResponse xmlns:x="http://www.onvif.org/ver10/device/wsdl"><x:Message>Rebooting</x:Message></x:SystemRebootResponse></s:Body>',
    );
    await expect(onvifIntercom().reboot({ host: '127.0.0.1', port, login, password })).resolves.toBeUndefined();
  });
});
