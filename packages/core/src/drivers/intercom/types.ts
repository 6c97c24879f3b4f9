/** What an intercom driver needs to reach one device. The password is already decrypted. */
export interface IntercomTarget {
  host: string;
  port: number;
  login: string;
  password: string;
}

/**
 * One vendor's way of talking to an intercom. Drivers throw VssError with code `device_error`
 * (refused, bad answer, unreachable) or `device_timeout` (no answer in time); the message names
 * the failure without echoing the device's body or any credential.
 */
export interface IntercomDriver {
  readonly vendor: string;
  reboot(target: IntercomTarget, options?: { signal?: AbortSignal }): Promise<void>;
}

export interface IntercomDriverOptions {
  /** How long to wait for the device, in milliseconds. */
  timeoutMs?: number;
  /** The largest device answer read, in bytes; the rest is refused as a bad answer. */
  maxBodyBytes?: number;
}

export type IntercomDriverFactory = (options?: IntercomDriverOptions) => IntercomDriver;
