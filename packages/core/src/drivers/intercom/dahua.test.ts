import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDahuaIntercom } from '../../testing/dahua-intercom';
import { fakeIntercomHarness } from '../../testing/digest-server';
import { describeIntercomDriverConformance } from './conformance';
import { dahuaIntercom } from './dahua';

const credentials = { login: 'vss-operator', password: 'Pa55-w0rd-kept-secret' };
const startHarness = () => fakeIntercomHarness(startFakeDahuaIntercom, dahuaIntercom({ timeoutMs: 300 }), credentials);

describeIntercomDriverConformance('dahua', startHarness);

describe('dahuaIntercom', () => {
  let harness: Awaited<ReturnType<typeof startHarness>>;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(() => harness.close());

  it('sends the documented CGI reboot request, with Digest auth, under its vendor name', async () => {
    expect(harness.driver.vendor).toBe('dahua');
    await harness.driver.reboot(harness.target);
    expect(harness.rebootCount()).toBe(1);
    // The unauthenticated attempt that draws the challenge, then the authenticated one.
    expect(harness.requests()).toEqual(Array(2).fill('GET /cgi-bin/magicBox.cgi?action=reboot'));
  });

  it('names the HTTP status, or says the answer was not OK, without echoing the body', async () => {
    harness.setBehaviour('refuse');
    await expect(harness.driver.reboot(harness.target)).rejects.toThrow('The intercom refused the reboot (HTTP 403).');
    for (const behaviour of ['fail-status', 'garbage'] as const) {
      harness.setBehaviour(behaviour);
      await expect(harness.driver.reboot(harness.target)).rejects.toThrow(
        /^The intercom answered the reboot with something other than OK\.$/,
      );
    }
  });
});
