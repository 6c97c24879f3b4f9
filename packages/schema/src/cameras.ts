import { z } from 'zod';
import { Id, Key, paginated, Timestamp } from './common';
import { Stream, StreamType } from './streams';

export const MAC_PATTERN = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;
export const GROUP_TYPES = ['public', 'private'] as const;
export const ARCHIVE_STORAGE_DAYS = { min: 1, max: 90 } as const;

const ArchiveStorageDays = z.int().min(ARCHIVE_STORAGE_DAYS.min).max(ARCHIVE_STORAGE_DAYS.max);

export const StreamArchiveSettings = z.object({
  type: StreamType,
  is_archive_enabled: z.boolean(),
  archive_storage_days: ArchiveStorageDays.optional(),
});
export type StreamArchiveSettings = z.input<typeof StreamArchiveSettings>;

export const OnvifCredentials = z.object({
  login: z.string().min(1).max(255),
  password: z.string().max(255),
  port: z.int().min(1).max(65535).default(80),
});

export const LogExtra = z.union([z.record(z.string(), z.unknown()), z.string(), z.array(z.unknown())]);

const cameraFields = {
  name: z.string().min(1).max(255),
  mac: z.string().regex(MAC_PATTERN, 'The mac field must be a MAC address such as 00:1a:2b:3c:4d:5e.'),
  serial_number: z.string().max(255).optional(),
  group_type: z.enum(GROUP_TYPES).default('private'),
  group_id: Id.optional(),
  group_external_id: Key.optional(),
  folder_id: Id.nullable().optional(),
  folder_key: Key.nullable().optional(),
  is_user_owner: z.boolean().default(false),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
  service: z.string().min(1).max(64).optional(),
  external_id: z.string().min(1).max(255).optional(),
  onvif_credentials: OnvifCredentials.optional(),
  is_can_manage_archive_storage_days: z.boolean().optional(),
  log_extra: LogExtra.optional(),
};

type Refinable = { group_id?: number | undefined; group_external_id?: string | undefined };

function requireGroup(value: Refinable, ctx: z.core.$RefinementCtx) {
  if (value.group_id === undefined && value.group_external_id === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['group_id'],
      message: 'The group id field is required when group external id is not present.',
    });
  }
}

function requireDaysWhenEnabled(
  settings: { is_archive_enabled: boolean; archive_storage_days?: number | undefined },
  path: (string | number)[],
  ctx: z.core.$RefinementCtx,
) {
  if (settings.is_archive_enabled && settings.archive_storage_days === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'archive_storage_days'],
      message: `The ${[...path, 'archive storage days'].join('.')} field is required when is archive enabled is true.`,
    });
  }
}

export const CameraCreateV2 = z
  .object({ ...cameraFields, streams: z.array(StreamArchiveSettings).max(2).optional() })
  .superRefine((value, ctx) => {
    requireGroup(value, ctx);
    const seen = new Set<string>();
    value.streams?.forEach((settings, index) => {
      if (seen.has(settings.type)) {
        ctx.addIssue({
          code: 'custom',
          path: ['streams', index, 'type'],
          message: `The streams.${index}.type field has a duplicate value.`,
        });
      }
      seen.add(settings.type);
      requireDaysWhenEnabled(settings, ['streams', index], ctx);
    });
  });
export type CameraCreateV2 = z.input<typeof CameraCreateV2>;
export type CameraCreateV2Parsed = z.output<typeof CameraCreateV2>;

/** v1 has one flat archive setting that applies to both stream types. */
export const CameraCreateV1 = z
  .object({
    ...cameraFields,
    is_archive_enabled: z.boolean().optional(),
    archive_storage_days: ArchiveStorageDays.optional(),
  })
  .superRefine((value, ctx) => {
    requireGroup(value, ctx);
    if (value.is_archive_enabled !== undefined) {
      requireDaysWhenEnabled({ ...value, is_archive_enabled: value.is_archive_enabled }, [], ctx);
    }
  });
export type CameraCreateV1 = z.input<typeof CameraCreateV1>;
export type CameraCreateV1Parsed = z.output<typeof CameraCreateV1>;

/** The 201 answer of camera creation: exactly the fields the specification lists. */
export const CameraCreated = z.object({
  id: z.int(),
  status: z.string(),
  name: z.string(),
  is_archive_recording: z.boolean(),
  archive_storage_days: z.int(),
  group_type: z.string(),
  is_user_owner: z.boolean(),
  is_need_replace: z.boolean(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  network_device: z.object({ mac: z.string(), serial_number: z.string() }),
  folder: z.object({ id: z.int(), key: z.string().nullable() }).nullable(),
});
export type CameraCreated = z.infer<typeof CameraCreated>;

export const StoredArchiveSettings = z.object({
  type: StreamType,
  is_archive_enabled: z.boolean(),
  archive_storage_days: z.int().nullable(),
});
export type StoredArchiveSettings = z.infer<typeof StoredArchiveSettings>;

export const Camera = z.object({
  id: z.int(),
  uuid: z.uuid(),
  name: z.string(),
  status: z.string(),
  external_id: z.string().nullable(),
  mac: z.string(),
  serial_number: z.string(),
  group_type: z.string(),
  tree_element_id: z.int(),
  folder_id: z.int().nullable(),
  is_user_owner: z.boolean(),
  is_need_replace: z.boolean(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  service: z.string().nullable(),
  is_can_manage_archive_storage_days: z.boolean().nullable(),
  /** ONVIF access without the password, which is never returned. */
  onvif: z.object({ login: z.string(), port: z.int() }).nullable(),
  log_extra: z.unknown().nullable(),
  archive_settings: z.array(StoredArchiveSettings),
  streams: z.array(Stream),
  created_at: Timestamp,
});
export type Camera = z.infer<typeof Camera>;

export const CameraList = paginated(Camera);
export type CameraList = z.infer<typeof CameraList>;
