import { VssError } from '../../errors';
import { DEVICE_SERVICE_PATH, NS, openSoapSession, xmlElements } from '../onvif/soap';
import type { IntercomDriver, IntercomDriverOptions } from './types';

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Any intercom with an ONVIF Device service (Profile S/T): SystemReboot, with a WS-Security UsernameToken. */
export function onvifIntercom(options: IntercomDriverOptions = {}): IntercomDriver {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    vendor: 'onvif',
    async reboot(target, { signal } = {}) {
      const call = await openSoapSession(target, {
        timeoutMs,
        maxBodyBytes,
        device: 'intercom',
        ...(signal ? { signal } : {}),
      });
      const body = await call({ path: DEVICE_SERVICE_PATH, namespace: NS.device, operation: 'SystemReboot' });
      // The Message is free text ("Rebooting in 30 seconds"), required by the WSDL but never shown.
      const [response] = xmlElements(body, 'SystemRebootResponse');
      if (response === undefined || xmlElements(response.inner, 'Message').length === 0) {
        throw new VssError('device_error', 'The intercom answered SystemReboot without a SystemRebootResponse.');
      }
    },
  };
}
