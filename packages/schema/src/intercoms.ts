import { z } from 'zod';
import { Id, Timestamp } from './common';

export const INTERCOM_VENDORS = ['hikvision', 'dahua', 'beward', 'onvif'] as const;
export const IntercomVendor = z.enum(INTERCOM_VENDORS);
export type IntercomVendor = z.infer<typeof IntercomVendor>;

/** A host name or an IP address: no scheme, path or credentials can be smuggled into the device URL. */
export const DeviceHost = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?)$/, 'The host field must be a host name or an IP address.');

export const IntercomCreate = z.object({
  name: z.string().min(1).max(255),
  vendor: IntercomVendor,
  host: DeviceHost,
  port: z.int().min(1).max(65535).default(80),
  login: z.string().min(1).max(255),
  password: z.string().max(255),
});
export type IntercomCreate = z.input<typeof IntercomCreate>;

/** An intercom as the API shows it: the password is never returned. */
export const Intercom = z.object({
  id: z.int(),
  name: z.string(),
  vendor: IntercomVendor,
  host: z.string(),
  port: z.int(),
  login: z.string(),
  last_restart_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type Intercom = z.infer<typeof Intercom>;

export const IntercomRestart = z.object({ intercom: Id.optional() });
