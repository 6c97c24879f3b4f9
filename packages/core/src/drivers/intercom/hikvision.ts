import { VssError } from '../../errors';
import { httpRebootIntercom } from './http-reboot';
import type { IntercomDriver, IntercomDriverOptions } from './types';

/** Hikvision intercoms (DS-KV/DS-KD series) through ISAPI over HTTP with Digest authentication. */
export function hikvisionIntercom(options?: IntercomDriverOptions): IntercomDriver {
  return httpRebootIntercom(
    {
      vendor: 'hikvision',
      method: 'PUT',
      path: '/ISAPI/System/reboot',
      defaultMaxBodyBytes: 64 * 1024,
      acknowledgement: 'an ISAPI ResponseStatus',
      acknowledges: (body) => {
        checkResponseStatus(body);
        return true;
      },
    },
    options,
  );
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
