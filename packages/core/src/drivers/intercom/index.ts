import { bewardIntercom } from './beward';
import { dahuaIntercom } from './dahua';
import { hikvisionIntercom } from './hikvision';
import { onvifIntercom } from './onvif';
import type { IntercomDriver, IntercomDriverOptions } from './types';

export type { IntercomDriver, IntercomDriverFactory, IntercomDriverOptions, IntercomTarget } from './types';
export { bewardIntercom } from './beward';
export { dahuaIntercom } from './dahua';
export { hikvisionIntercom } from './hikvision';
export { onvifIntercom } from './onvif';

/** Every intercom driver VSS ships, keyed by vendor, all sharing the same timeout and body cap. */
export function builtInIntercomDrivers(options?: IntercomDriverOptions): Record<string, IntercomDriver> {
  const drivers = [hikvisionIntercom(options), dahuaIntercom(options), bewardIntercom(options), onvifIntercom(options)];
  return Object.fromEntries(drivers.map((driver) => [driver.vendor, driver]));
}
