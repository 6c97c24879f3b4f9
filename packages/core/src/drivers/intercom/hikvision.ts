import { VssError } from '../../errors';
import { deviceRequest } from './digest';
import type { IntercomDriver, IntercomDriverOptions } from './types';

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Hikvision intercoms (DS-KV/DS-KD series) through ISAPI over HTTP with Digest authentication. */
export function hikvisionIntercom(options: IntercomDriverOptions = {}): IntercomDriver {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    vendor: 'hikvision',
    async reboot(target, { signal } = {}) {
      const response = await deviceRequest({
        host: target.host,
        port: target.port,
        login: target.login,
        password: target.password,
        method: 'PUT',
        path: '/ISAPI/System/reboot',
        timeoutMs,
        maxBodyBytes,
        device: 'intercom',
        ...(signal ? { signal } : {}),
      });
      if (response.status === 401) {
        throw new VssError('device_error', 'The intercom refused the login or password (HTTP 401).');
      }
      if (response.status < 200 || response.status > 299) {
        throw new VssError('device_error', `The intercom refused the reboot (HTTP ${response.status}).`);
      }
      checkResponseStatus(response.body.toString('utf8'));
    },
  };
}

/**
 * ISAPI answers a 2xx even for some failures and tells them apart in `<ResponseStatus>`: statusCode 1
 * ("OK") is success. Some firmware answers the reboot with an empty body, which counts as accepted.
 * Only the numeric code is echoed, never the device's own text.
 */
function checkResponseStatus(xml: string): void {
  if (xml.trim() === '') return;
  const element = (name: string) =>
    new RegExp(`<(?:[\\w.-]+:)?${name}\\b[^>]*>\\s*([^<]*?)\\s*</(?:[\\w.-]+:)?${name}>`).exec(xml)?.[1];
  if (!/<(?:[\w.-]+:)?ResponseStatus\b/.test(xml)) {
    throw new VssError('device_error', 'The intercom answered the reboot with something other than an ISAPI ResponseStatus.');
  }
  const statusCode = element('statusCode');
  if (statusCode === '1' || element('statusString') === 'OK') return;
  throw new VssError(
    'device_error',
    statusCode !== undefined && /^\d+$/.test(statusCode)
      ? `The intercom refused the reboot (ISAPI status ${statusCode}).`
      : 'The intercom answered the reboot with an ISAPI ResponseStatus that has no valid status code.',
  );
}
