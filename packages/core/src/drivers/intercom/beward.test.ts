import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeBewardIntercom } from '../../testing/beward-intercom';
import { fakeIntercomHarness } from '../../testing/digest-server';
import { bewardAnswerIsOk, bewardIntercom } from './beward';
import { describeIntercomDriverConformance } from './conformance';

const credentials = { login: 'admin', password: 'Pa55-w0rd-kept-secret' };
const startHarness = () => fakeIntercomHarness(startFakeBewardIntercom, bewardIntercom({ timeoutMs: 300 }), credentials);

describeIntercomDriverConformance('beward', startHarness);

describe('bewardIntercom', () => {
  let harness: Awaited<ReturnType<typeof startHarness>>;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(() => harness.close());

  it('sends the documented CGI restart request, with Basic auth, under its vendor name', async () => {
    expect(harness.driver.vendor).toBe('beward');
    await harness.driver.reboot(harness.target);
    expect(harness.rebootCount()).toBe(1);
    expect(harness.requests()).toEqual(['GET /cgi-bin/restart_cgi', 'GET /cgi-bin/restart_cgi']);
  });

  it('names a refused login or reboot, or says the answer was not OK, without echoing the body', async () => {
    await expect(harness.driver.reboot(harness.wrongPasswordTarget)).rejects.toThrow(
      'The intercom refused the login or password (HTTP 401).',
    );
    harness.setBehaviour('refuse');
    await expect(harness.driver.reboot(harness.target)).rejects.toThrow('The intercom refused the reboot (HTTP 403).');
    harness.setBehaviour('fail-status');
    await expect(harness.driver.reboot(harness.target)).rejects.toThrow(
      /^The intercom answered the reboot with something other than OK\.$/,
    );
  });
});

describe('bewardAnswerIsOk', () => {
  it.each([
    ['OK', true],
    ['OK\r\n', true],
    ['<html><head><title>DKS</title></head><body><p>OK</p></body></html>', true],
    ['<html><body>Command result: OK<br></body></html>', true],
    ['', false],
    ['ok', false],
    ['TOKEN', false],
    ['NOT OK', false],
    ['Error', false],
    ['ERROR: OK was not expected', false],
    ['Restart failed. OK', false],
    ['<input type="button" value="OK">', false],
    ['<!-- OK --><html><body>Welcome</body></html>', false],
    ['<script>var state = "OK";</script>', false],
  ])('judges %j as an acknowledgement: %s', (body, acknowledged) => {
    expect(bewardAnswerIsOk(body)).toBe(acknowledged);
  });
});
