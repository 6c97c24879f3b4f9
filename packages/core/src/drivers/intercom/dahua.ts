import { httpRebootIntercom } from './http-reboot';
import type { IntercomDriver, IntercomDriverOptions } from './types';

/**
 * Dahua intercoms (VTO series) through the HTTP CGI API with Digest authentication:
 * `GET /cgi-bin/magicBox.cgi?action=reboot`, acknowledged with `OK` before the device restarts.
 */
export function dahuaIntercom(options?: IntercomDriverOptions): IntercomDriver {
  return httpRebootIntercom(
    {
      vendor: 'dahua',
      method: 'GET',
      path: '/cgi-bin/magicBox.cgi?action=reboot',
      defaultMaxBodyBytes: 16 * 1024,
      acknowledgement: 'OK',
      // Dahua CGIs answer 200 even when they fail, with "Error" and a reason on the next line, so
      // only the exact acknowledgement counts.
      acknowledges: (body) => body.trim().toUpperCase() === 'OK',
    },
    options,
  );
}
