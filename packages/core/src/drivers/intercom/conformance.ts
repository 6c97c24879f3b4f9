import { closedPort } from '../../testing/network';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VssError } from '../../errors';
import type { IntercomDriver, IntercomTarget } from './types';

/** What a vendor's fake device can be told to do with the next reboot; see each fake for details. */
export type IntercomDeviceBehaviour = 'ok' | 'refuse' | 'hang' | 'garbage' | 'huge' | 'fail-status';

export interface IntercomConformanceHarness {
  /** Configured with a short timeout (a few hundred ms), since one case waits for it to expire. */
  driver: IntercomDriver;
  /** Reaches the fake device with valid credentials. */
  target: IntercomTarget;
  wrongPasswordTarget: IntercomTarget;
  setBehaviour(behaviour: IntercomDeviceBehaviour): void;
  rebootCount(): number;
  close(): Promise<void>;
}

async function rejectionOf(promise: Promise<unknown>): Promise<VssError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(VssError);
  return error as VssError;
}


/**
 * The behaviour every IntercomDriver must show against its vendor's fake device. `setup` runs before
 * each case with a fresh device whose behaviour is 'ok'.
 */
export function describeIntercomDriverConformance(name: string, setup: () => Promise<IntercomConformanceHarness>): void {
  describe(`${name} intercom driver conformance`, () => {
    let harness: IntercomConformanceHarness;
    beforeEach(async () => {
      harness = await setup();
    });
    afterEach(async () => {
      await harness.close();
    });

    const expectNoSecrets = (error: VssError, target: IntercomTarget) => {
      expect(error.message).not.toContain(target.password);
      expect(error.message).not.toContain(target.login);
    };

    it('reboots the device exactly once', async () => {
      await harness.driver.reboot(harness.target);
      expect(harness.rebootCount()).toBe(1);
    });

    it('reports a wrong password as device_error without echoing the credentials', async () => {
      const error = await rejectionOf(harness.driver.reboot(harness.wrongPasswordTarget));
      expect(error.code).toBe('device_error');
      expectNoSecrets(error, harness.wrongPasswordTarget);
      expectNoSecrets(error, harness.target);
      expect(harness.rebootCount()).toBe(0);
    });

    it.each(['refuse', 'garbage', 'fail-status'] as const)('reports %s as device_error', async (behaviour) => {
      harness.setBehaviour(behaviour);
      const error = await rejectionOf(harness.driver.reboot(harness.target));
      expect(error.code).toBe('device_error');
      expectNoSecrets(error, harness.target);
    });

    it('refuses an oversized answer as device_error instead of reading all of it', async () => {
      harness.setBehaviour('huge');
      const error = await rejectionOf(harness.driver.reboot(harness.target));
      expect(error.code).toBe('device_error');
    });

    it('reports a device that never answers as device_timeout', async () => {
      harness.setBehaviour('hang');
      const error = await rejectionOf(harness.driver.reboot(harness.target));
      expect(error.code).toBe('device_timeout');
      expectNoSecrets(error, harness.target);
    });

    it('reports a closed port as device_error', async () => {
      const error = await rejectionOf(harness.driver.reboot({ ...harness.target, port: await closedPort() }));
      expect(error.code).toBe('device_error');
      expectNoSecrets(error, harness.target);
    });

    it("rejects with the caller's abort reason and leaves the device alone when already aborted", async () => {
      const reason = new Error('caller gave up');
      await expect(harness.driver.reboot(harness.target, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      expect(harness.rebootCount()).toBe(0);
    });

    it("stops waiting when the caller aborts, rejecting with the caller's reason", async () => {
      harness.setBehaviour('hang');
      const controller = new AbortController();
      const reason = new Error('caller gave up');
      const reboot = harness.driver.reboot(harness.target, { signal: controller.signal });
      setTimeout(() => controller.abort(reason), 50);
      await expect(reboot).rejects.toBe(reason);
    });
  });
}
