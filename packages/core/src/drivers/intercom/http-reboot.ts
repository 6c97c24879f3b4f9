import { VssError } from '../../errors';
import { deviceRequest } from './digest';
import type { IntercomDriver, IntercomDriverOptions } from './types';

const DEFAULT_TIMEOUT_MS = 5000;

/** A vendor whose reboot is one authenticated HTTP request acknowledged by a short text answer. */
export interface HttpRebootCommand {
  vendor: string;
  method: string;
  /** The request target, query included. */
  path: string;
  /** The answer cap when the caller sets none, sized to the longest acknowledgement the vendor sends. */
  defaultMaxBodyBytes: number;
  /** How error messages name the acknowledgement, e.g. "OK". */
  acknowledgement: string;
  /** Whether a 2xx answer's body acknowledges the reboot; may throw a more precise VssError itself. */
  acknowledges(body: string): boolean;
}

/**
 * A driver for a vendor described by `command`. Shared by the CGI-style vendors so that they map
 * statuses and word their errors alike; the device's body is judged but never echoed.
 */
export function httpRebootIntercom(command: HttpRebootCommand, options: IntercomDriverOptions = {}): IntercomDriver {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? command.defaultMaxBodyBytes;
  return {
    vendor: command.vendor,
    async reboot(target, { signal } = {}) {
      const { status, body } = await deviceRequest({
        host: target.host,
        port: target.port,
        login: target.login,
        password: target.password,
        method: command.method,
        path: command.path,
        timeoutMs,
        maxBodyBytes,
        device: 'intercom',
        ...(signal ? { signal } : {}),
      });
      if (status === 401) {
        throw new VssError('device_error', 'The intercom refused the login or password (HTTP 401).');
      }
      if (status < 200 || status > 299) {
        throw new VssError('device_error', `The intercom refused the reboot (HTTP ${status}).`);
      }
      if (!command.acknowledges(body.toString('utf8'))) {
        throw new VssError(
          'device_error',
          `The intercom answered the reboot with something other than ${command.acknowledgement}.`,
        );
      }
    },
  };
}
