import { startRtspCameraServer, type RtspCameraServer } from '@vss/core/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, recordEvents, streamStatus } from '../support/media';
import { createCamera, startTestServer, type TestServer } from '../support/server';

/** Debian's Chromium; the flags keep it from dialling out on a machine without a network. */
const CHROMIUM = process.env.VSS_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required',
];

describe('the embeddable player in headless Chromium', () => {
  let camera: RtspCameraServer;
  let server: TestServer;
  let browser: Browser;
  let uid: string;

  beforeAll(async () => {
    camera = await startRtspCameraServer();
    server = await startTestServer('pglite', { media: { segmentSeconds: 2 } });
    const created = await createCamera(server);
    const stream = await (
      await server.request(`/api/admin/v1/cameras/${created.id}/streams`, { body: { type: 'high', url: camera.url('door') } })
    ).json();
    uid = stream.uid;
    const events = recordEvents(server, uid);
    await streamStatus(server, uid, 'active');
    await eventually(async () => events.segments.length >= 3, { what: 'three live segments' });
    events.stop();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await camera?.close();
  });

  it('plays live video: the video element’s currentTime advances', async () => {
    const token = (await (
      await server.request('/api/auth/token/access/', { body: { uid, user: 'viewer-1', duration: 300 } })
    ).json()) as string;
    const page = await browser.newPage();
    try {
      const response = await page.goto(`${server.url}/api/v1/media/${uid}/player?mode=live&token=${encodeURIComponent(token)}`);
      expect(response?.status()).toBe(200);
      await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 0.5, undefined, {
        timeout: 30_000,
      });
      const first = await page.evaluate(() => document.querySelector('video')!.currentTime);
      await page.waitForFunction((start) => document.querySelector('video')!.currentTime > start + 1, first, {
        timeout: 30_000,
      });
      const errors = await page.evaluate(() => document.querySelector('video')!.error);
      expect(errors).toBeNull();
    } finally {
      await page.close();
    }
  }, 90_000);
});
