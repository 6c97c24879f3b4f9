import { z } from 'zod';
import { Id, Timestamp, Uid } from './common';

export const STREAM_TYPES = ['high', 'low'] as const;
export const StreamType = z.enum(STREAM_TYPES);
export type StreamType = z.infer<typeof StreamType>;

export const STREAM_STATUSES = ['empty', 'initialization', 'active', 'inactive'] as const;
export const StreamStatus = z.enum(STREAM_STATUSES);
export type StreamStatus = z.infer<typeof StreamStatus>;

/** Source protocols a stream may be pulled from; local files, pipes and the like never are. */
export const SOURCE_PROTOCOLS = ['rtsp:', 'rtsps:', 'rtmp:', 'http:', 'https:'] as const;

export const SourceUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      return (SOURCE_PROTOCOLS as readonly string[]).includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'The url field must be an rtsp, rtsps, rtmp, http or https URL.');

export const StreamCreate = z.object({
  type: StreamType,
  url: SourceUrl,
  uid: Uid.optional(),
});
export type StreamCreate = z.input<typeof StreamCreate>;

export const Reconnection = z.object({
  /** Failed attempts since the last successful connection. */
  attempts: z.int(),
  /** Reconnections since the counters were last reset. */
  total: z.int(),
  last_error: z.string().nullable(),
  last_error_at: Timestamp.nullable(),
  reset_at: Timestamp.nullable(),
});
export type Reconnection = z.infer<typeof Reconnection>;

export const Stream = z.object({
  uid: Uid,
  camera_id: Id,
  type: StreamType,
  /** The source URL with any password masked. */
  url: z.string().nullable(),
  status: StreamStatus,
  is_archive_enabled: z.boolean(),
  archive_storage_days: z.int().nullable(),
  reconnection: Reconnection,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Stream = z.infer<typeof Stream>;

/** The DHCP server's callback when a device gets an address. */
export const DeviceAddress = z.object({
  mac: z.string().regex(/^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/),
  ip: z.union([z.ipv4(), z.ipv6()]),
});
export type DeviceAddress = z.input<typeof DeviceAddress>;
