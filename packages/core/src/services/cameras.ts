import {
  CameraCreateV1,
  CameraCreateV2,
  PaginationQuery,
  type Camera,
  type CameraCreated,
  type CameraCreateV2Parsed,
  type CameraList,
  type StoredArchiveSettings,
  type StreamType,
  type ValidationErrors,
} from '@vss/schema';
import { asc, count, eq, inArray } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { CoreContext } from '../context';
import { constraintName, isUniqueViolation } from '../db/errors';
import { cameraArchiveSettings, cameras, streams } from '../db/schema';
import { fieldError, notFound, parseInput, validationError, VssError } from '../errors';
import { noEmit, type Emit } from '../events/bus';
import { toStream } from './streams';
import { iso } from './serialize';
import type { TreeService } from './tree';

type CameraRow = typeof cameras.$inferSelect;
type ArchiveSettingsRow = typeof cameraArchiveSettings.$inferSelect;
type CameraFields = Omit<CameraCreateV2Parsed, 'streams'>;

interface ArchiveSetting {
  type: StreamType;
  is_archive_enabled: boolean;
  archive_storage_days?: number | undefined;
}

/** v1 of camera creation lives for six months after the v2 release, then answers 410. */
export interface V1Lifecycle {
  deprecatedSince: Date;
  sunset: Date;
  gone: boolean;
}

export function v1Lifecycle(v2ReleaseDate: Date, now: Date): V1Lifecycle {
  const sunset = new Date(v2ReleaseDate);
  sunset.setUTCMonth(sunset.getUTCMonth() + 6);
  return { deprecatedSince: v2ReleaseDate, sunset, gone: now.getTime() >= sunset.getTime() };
}

function toCameraCreated(row: CameraRow, settings: ArchiveSetting[], folderKey: string | null): CameraCreated {
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    is_archive_recording: settings.some((setting) => setting.is_archive_enabled),
    archive_storage_days: Math.max(0, ...settings.map((setting) => setting.archive_storage_days ?? 0)),
    group_type: row.groupType,
    is_user_owner: row.isUserOwner,
    is_need_replace: row.isNeedReplace,
    latitude: row.latitude,
    longitude: row.longitude,
    network_device: { mac: row.mac, serial_number: row.serialNumber },
    folder: row.folderId === null ? null : { id: row.folderId, key: folderKey },
  };
}

const toStoredSettings = (row: ArchiveSettingsRow): StoredArchiveSettings => ({
  type: row.type as StreamType,
  is_archive_enabled: row.isArchiveEnabled,
  archive_storage_days: row.archiveStorageDays,
});

export function createCameraService(
  ctx: CoreContext,
  tree: TreeService,
  options: { v2ReleaseDate: Date; emit?: Emit },
) {
  const emit = options.emit ?? noEmit;
  const { db } = ctx;

  /** Resolves the tree element and folder, and checks every rule that needs the database, at once. */
  async function resolvePlacement(fields: CameraFields) {
    const errors: ValidationErrors = {};
    const refuse = (field: string, reason: string) => (errors[field] ??= []).push(reason);

    const byId = fields.group_id === undefined ? undefined : await tree.findTreeElement(fields.group_id);
    const byKey =
      fields.group_external_id === undefined ? undefined : await tree.findTreeElementByKey(fields.group_external_id);
    if (fields.group_id !== undefined && !byId) refuse('group_id', 'The selected group id is invalid.');
    if (fields.group_external_id !== undefined && !byKey) {
      refuse('group_external_id', 'The selected group external id is invalid.');
    }
    if (byId && byKey && byId.id !== byKey.id) {
      refuse('group_external_id', 'The group external id names another tree element than the group id.');
    }
    const treeElement = byId ?? byKey;

    let folder: { id: number; key: string | null } | undefined;
    if (treeElement && fields.folder_id != null) {
      const found = await tree.findFolder(fields.folder_id);
      if (!found) refuse('folder_id', 'The selected folder id is invalid.');
      else if (found.treeElementId !== treeElement.id) {
        refuse('folder_id', 'The folder must belong to the tree element in which the camera is created.');
      } else folder = found;
    }
    if (treeElement && fields.folder_key != null) {
      const found = await tree.findFolderByKey(treeElement.id, fields.folder_key);
      if (!found) refuse('folder_key', 'No folder with this key exists in the tree element of the camera.');
      else if (folder && folder.id !== found.id) {
        refuse('folder_key', 'The folder key names another folder than the folder id.');
      } else folder = found;
    }

    if (fields.service !== undefined && !ctx.cameraProfiles[fields.service]) {
      refuse('service', `The selected service is invalid. Allowed: ${Object.keys(ctx.cameraProfiles).join(', ')}.`);
    }
    const mac = fields.mac.toLowerCase();
    const [macTaken] = await db.select({ id: cameras.id }).from(cameras).where(eq(cameras.mac, mac));
    if (macTaken) refuse('mac', 'The mac has already been taken.');
    if (fields.external_id !== undefined) {
      const [taken] = await db.select({ id: cameras.id }).from(cameras).where(eq(cameras.externalId, fields.external_id));
      if (taken) refuse('external_id', 'The external id has already been taken.');
    }

    if (Object.keys(errors).length > 0 || !treeElement) throw validationError(errors);
    return { treeElementId: treeElement.id, folder, mac };
  }

  async function create(fields: CameraFields, settings: ArchiveSetting[]): Promise<CameraCreated> {
    const { treeElementId, folder, mac } = await resolvePlacement(fields);
    try {
      const row = await db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(cameras)
          .values({
            uuid: randomUUID(),
            name: fields.name,
            mac,
            serialNumber: fields.serial_number ?? '',
            groupType: fields.group_type,
            treeElementId,
            folderId: folder?.id ?? null,
            isUserOwner: fields.is_user_owner,
            latitude: fields.latitude ?? null,
            longitude: fields.longitude ?? null,
            service: fields.service ?? null,
            externalId: fields.external_id ?? null,
            onvifLogin: fields.onvif_credentials?.login ?? null,
            onvifPasswordEncrypted: fields.onvif_credentials
              ? ctx.secrets.seal(fields.onvif_credentials.password)
              : null,
            onvifPort: fields.onvif_credentials?.port ?? null,
            isCanManageArchiveStorageDays: fields.is_can_manage_archive_storage_days ?? null,
            logExtra: fields.log_extra ?? null,
          })
          .returning();
        if (settings.length > 0) {
          await tx.insert(cameraArchiveSettings).values(
            settings.map((setting) => ({
              cameraId: inserted!.id,
              type: setting.type,
              isArchiveEnabled: setting.is_archive_enabled,
              archiveStorageDays: setting.archive_storage_days ?? null,
            })),
          );
        }
        return inserted!;
      });
      ctx.logger.info('camera created', { camera_id: row.id, uuid: row.uuid });
      await emit('camera.created', { id: row.id, uuid: row.uuid, name: row.name });
      return toCameraCreated(row, settings, folder?.key ?? null);
    } catch (error) {
      // Another request took the mac or external id between our check and the insert.
      if (isUniqueViolation(error)) {
        const constraint = constraintName(error) ?? '';
        if (constraint.includes('external_id')) throw fieldError('external_id', 'The external id has already been taken.');
        throw fieldError('mac', 'The mac has already been taken.');
      }
      throw error;
    }
  }

  async function toCamera(row: CameraRow): Promise<Camera> {
    const [settings, streamRows] = await Promise.all([
      db.select().from(cameraArchiveSettings).where(eq(cameraArchiveSettings.cameraId, row.id)).orderBy(asc(cameraArchiveSettings.type)),
      db.select().from(streams).where(eq(streams.cameraId, row.id)).orderBy(asc(streams.type)),
    ]);
    return assembleCamera(row, settings, streamRows);
  }

  function assembleCamera(
    row: CameraRow,
    settings: ArchiveSettingsRow[],
    streamRows: (typeof streams.$inferSelect)[],
  ): Camera {
    return {
      id: row.id,
      uuid: row.uuid,
      name: row.name,
      status: row.status,
      external_id: row.externalId,
      mac: row.mac,
      serial_number: row.serialNumber,
      group_type: row.groupType,
      tree_element_id: row.treeElementId,
      folder_id: row.folderId,
      is_user_owner: row.isUserOwner,
      is_need_replace: row.isNeedReplace,
      latitude: row.latitude,
      longitude: row.longitude,
      service: row.service,
      is_can_manage_archive_storage_days: row.isCanManageArchiveStorageDays,
      onvif: row.onvifLogin ? { login: row.onvifLogin, port: row.onvifPort ?? 80 } : null,
      log_extra: row.logExtra ?? null,
      archive_settings: settings.map(toStoredSettings),
      streams: streamRows.map((stream) => toStream(stream, (sealed) => ctx.secrets.open(sealed))),
      created_at: iso(row.createdAt),
    };
  }

  return {
    createV2(input: unknown): Promise<CameraCreated> {
      const { streams: settings = [], ...fields } = parseInput(CameraCreateV2, input);
      return create(fields, settings);
    },

    v1Lifecycle: () => v1Lifecycle(options.v2ReleaseDate, ctx.now()),

    /** v1: one flat archive setting for both stream types; gone after the sunset. */
    createV1(input: unknown): Promise<CameraCreated> {
      if (v1Lifecycle(options.v2ReleaseDate, ctx.now()).gone) {
        throw new VssError('gone', 'Camera creation v1 has been retired; use POST /api/v2/billing/cameras.');
      }
      const { is_archive_enabled, archive_storage_days, ...fields } = parseInput(CameraCreateV1, input);
      const settings: ArchiveSetting[] =
        is_archive_enabled === undefined
          ? []
          : (['high', 'low'] as const).map((type) => ({ type, is_archive_enabled, archive_storage_days }));
      return create(fields, settings);
    },

    async list(query: unknown): Promise<CameraList> {
      const { page, per_page } = parseInput(PaginationQuery, query);
      const [[{ total } = { total: 0 }], rows] = await Promise.all([
        db.select({ total: count() }).from(cameras),
        db.select().from(cameras).orderBy(asc(cameras.id)).limit(per_page).offset((page - 1) * per_page),
      ]);
      const ids = rows.map((row) => row.id);
      const [settings, streamRows] = ids.length
        ? await Promise.all([
            db.select().from(cameraArchiveSettings).where(inArray(cameraArchiveSettings.cameraId, ids)),
            db.select().from(streams).where(inArray(streams.cameraId, ids)).orderBy(asc(streams.type)),
          ])
        : [[], []];
      return {
        data: rows.map((row) =>
          assembleCamera(
            row,
            settings.filter((setting) => setting.cameraId === row.id).sort((a, b) => a.type.localeCompare(b.type)),
            streamRows.filter((stream) => stream.cameraId === row.id),
          ),
        ),
        meta: { page, per_page, total, last_page: Math.max(1, Math.ceil(total / per_page)) },
      };
    },

    async get(id: number): Promise<Camera> {
      const [row] = await db.select().from(cameras).where(eq(cameras.id, id));
      if (!row) throw notFound(`Camera ${id}`);
      return toCamera(row);
    },
  };
}

export type CameraService = ReturnType<typeof createCameraService>;
