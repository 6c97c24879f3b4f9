import { hikvisionIntercom } from './hikvision';
import type { IntercomDriver, IntercomDriverOptions } from './types';

export type { IntercomDriver, IntercomDriverFactory, IntercomDriverOptions, IntercomTarget } from './types';
export { hikvisionIntercom } from './hikvision';

/** Every intercom driver VSS ships, keyed by vendor, all sharing the same timeout and body cap. */
export function builtInIntercomDrivers(options?: IntercomDriverOptions): Record<string, IntercomDriver> {
  const drivers = [hikvisionIntercom(options)];
  return Object.fromEntries(drivers.map((driver) => [driver.vendor, driver]));
}
