import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VssError } from '../../errors';
import { startFakeHikvisionIntercom } from '../../testing/hikvision-intercom';
import { describeIntercomDriverConformance } from './conformance';
import { hikvisionIntercom } from './hikvision';
import { builtInIntercomDrivers } from './index';

const login = 'vss-operator';
const password = 'Pa55-w0rd-kept-secret';

describeIntercomDriverConformance('hikvision', async () => {
  const device = await startFakeHikvisionIntercom({ login, password });
  const target = { host: device.host, port: device.port, login, password };
  return {
    driver: hikvisionIntercom({ timeoutMs: 300 }),
    target,
    wrongPasswordTarget: { ...target, password: 'not-the-password' },
    setBehaviour: device.setBehaviour,
    rebootCount: device.rebootCount,
    close: device.close,
  };
});

describe('hikvisionIntercom', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  /** A device that needs no authentication, for answers the fake does not give. */
  async function plainDevice(host: string, handler: RequestListener): Promise<number> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server?.listen(0, host, resolve));
    return (server.address() as AddressInfo).port;
  }

  it('is registered under its vendor among the built-in drivers', () => {
    expect(builtInIntercomDrivers().hikvision?.vendor).toBe('hikvision');
  });

  it('accepts an empty 2xx answer and reaches a bracketed IPv6 host', async () => {
    const seen: string[] = [];
    const port = await plainDevice('::1', (req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'Content-Length': 0 }).end();
    });
    await hikvisionIntercom().reboot({ host: '[::1]', port, login, password });
    expect(seen).toEqual(['PUT /ISAPI/System/reboot']);
  });

  it("never echoes the device's text in its messages", async () => {
    const device = await startFakeHikvisionIntercom({ login, password });
    try {
      const driver = hikvisionIntercom();
      const target = { host: device.host, port: device.port, login, password };
      for (const [behaviour, text] of [
        ['garbage', 'Welcome'],
        ['fail-status', 'Invalid Content'],
        ['refuse', 'Invalid Operation'],
      ] as const) {
        device.setBehaviour(behaviour);
        const error = await driver.reboot(target).catch((reason: unknown) => reason);
        expect(error).toBeInstanceOf(VssError);
        expect((error as VssError).message).not.toContain(text);
      }
    } finally {
      await device.close();
    }
  });

  it('names the HTTP status and the ISAPI status code when refused', async () => {
    const device = await startFakeHikvisionIntercom({ login, password, behaviour: 'refuse' });
    try {
      const driver = hikvisionIntercom();
      const target = { host: device.host, port: device.port, login, password };
      await expect(driver.reboot(target)).rejects.toThrow('The intercom refused the reboot (HTTP 403).');
      device.setBehaviour('fail-status');
      await expect(driver.reboot(target)).rejects.toThrow('The intercom refused the reboot (ISAPI status 6).');
    } finally {
      await device.close();
    }
  });

  it('refuses an answer over the configured cap even when it announces its length', async () => {
    const port = await plainDevice('127.0.0.1', (_req, res) => {
      res.writeHead(200, { 'Content-Length': 100 }).end('x'.repeat(100));
    });
    const driver = hikvisionIntercom({ maxBodyBytes: 64 });
    await expect(driver.reboot({ host: '127.0.0.1', port, login, password })).rejects.toMatchObject({
      code: 'device_error',
      message: "The intercom's answer was larger than 64 bytes.",
    });
  });

  it('states the timeout in its message', async () => {
    const device = await startFakeHikvisionIntercom({ login, password, behaviour: 'hang' });
    try {
      const target = { host: device.host, port: device.port, login, password };
      await expect(hikvisionIntercom({ timeoutMs: 250 }).reboot(target)).rejects.toThrow(
        'The intercom did not answer within 250 ms.',
      );
    } finally {
      await device.close();
    }
  });
});
