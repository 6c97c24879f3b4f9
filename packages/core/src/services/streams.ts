import {
  DeviceAddress,
  StreamCreate,
  StreamRestartParams,
  type Stream,
  type StreamStatus,
  type StreamType,
} from '@vss/schema';
import { and, eq, inArray } from 'drizzle-orm';
import type { CameraProfile, CoreContext } from '../context';
import { maskUrlPassword } from '../crypto';
import type { Database } from '../db/client';
import { constraintName, isUniqueViolation } from '../db/errors';
import { cameraArchiveSettings, cameras, streams } from '../db/schema';
import { fieldError, notFound, parseInput, VssError } from '../errors';
import { iso, isoOrNull } from './serialize';

type StreamRow = typeof streams.$inferSelect;
type CameraRow = typeof cameras.$inferSelect;

export function toStream(row: StreamRow, openSecret: (sealed: string) => string): Stream {
  return {
    uid: row.uid,
    camera_id: row.cameraId,
    type: row.type as StreamType,
    url: row.sourceUrlEncrypted ? maskUrlPassword(openSecret(row.sourceUrlEncrypted)) : null,
    status: row.status as StreamStatus,
    is_archive_enabled: row.isArchiveEnabled,
    archive_storage_days: row.archiveStorageDays,
    reconnection: {
      attempts: row.reconnectAttempts,
      total: row.reconnectsTotal,
      last_error: row.lastError,
      last_error_at: isoOrNull(row.lastErrorAt),
      reset_at: isoOrNull(row.reconnectionResetAt),
    },
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The archive settings stored on the camera for one stream type, or archive off. */
async function storedArchiveSettings(db: Database, cameraId: number, type: StreamType) {
  const [settings] = await db
    .select()
    .from(cameraArchiveSettings)
    .where(and(eq(cameraArchiveSettings.cameraId, cameraId), eq(cameraArchiveSettings.type, type)));
  return {
    isArchiveEnabled: settings?.isArchiveEnabled ?? false,
    archiveStorageDays: settings?.archiveStorageDays ?? null,
  };
}

const defaultUid = (camera: CameraRow, type: StreamType) => `${camera.uuid}-${type}`;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Builds a stream's source URL from a profile template, with the camera's credentials if it has any. */
function sourceUrl(template: string, ip: string, credentials: { login: string; password: string } | null) {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  const url = new URL(template.replaceAll('{ip}', host));
  if (credentials) {
    url.username = credentials.login;
    url.password = credentials.password;
  }
  return url.toString();
}

/**
 * The internal source of a stream whose RTSP address is asked over ONVIF when its ingest starts
 * (the camera's ONVIF service is often not up yet when it gets its address): no credentials in it.
 */
function onvifSource(ip: string, port: number | null, type: StreamType) {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return `onvif://${host}:${port ?? 80}/${type}`;
}

/** Told when streams' sources change or a restart was asked for, so that their ingest follows. */
export interface StreamChangeListener {
  changed(uids: string[]): unknown;
  restarted(uids: string[]): unknown;
}

export function createStreamService(ctx: CoreContext, listener?: StreamChangeListener) {
  const { db } = ctx;
  const open = (sealed: string) => ctx.secrets.open(sealed);

  async function requireCamera(id: number) {
    const [camera] = await db.select().from(cameras).where(eq(cameras.id, id));
    if (!camera) throw notFound(`Camera ${id}`);
    return camera;
  }

  /**
   * Resolves the three params forms of Stream.Restart to stream rows, all or nothing. `droppedKeys`
   * are object-form keys the parser left out (`__proto__`): they name no camera.
   */
  async function resolveRestartTargets(
    db: Database,
    params: StreamRestartParams,
    droppedKeys: string[] = [],
  ): Promise<StreamRow[]> {
    const byCamera = typeof params === 'string' || Array.isArray(params) ? null : params;
    const uids = typeof params === 'string' ? [params] : Array.isArray(params) ? params : Object.values(params).flat();
    const unique = [...new Set(uids)];
    const rows = await db.select().from(streams).where(inArray(streams.uid, unique));
    const found = new Map(rows.map((row) => [row.uid, row]));
    const unknownUids = new Set(unique.filter((uid) => !found.has(uid)));
    const unknownCameras: string[] = [...droppedKeys];
    if (byCamera) {
      const uuids = Object.keys(byCamera);
      // Only a well-formed uuid may reach the uuid column: anything else is an unknown camera, not a database error.
      const validUuids = uuids.filter((uuid) => UUID_PATTERN.test(uuid));
      const cameraRows = validUuids.length
        ? await db.select({ id: cameras.id, uuid: cameras.uuid }).from(cameras).where(inArray(cameras.uuid, validUuids))
        : [];
      const cameraIds = new Map(cameraRows.map((camera) => [camera.uuid.toLowerCase(), camera.id]));
      for (const [uuid, cameraUids] of Object.entries(byCamera)) {
        const cameraId = cameraIds.get(uuid.toLowerCase());
        if (cameraId === undefined) unknownCameras.push(uuid);
        for (const uid of cameraUids) {
          if (found.get(uid)?.cameraId !== cameraId) unknownUids.add(uid);
        }
      }
    }
    if (unknownUids.size > 0 || unknownCameras.length > 0) {
      throw new VssError('not_found', 'Unknown stream uids: nothing was restarted.', {
        data: {
          unknown_uids: [...unknownUids],
          ...(unknownCameras.length ? { unknown_cameras: unknownCameras } : {}),
        },
      });
    }
    return rows;
  }

  return {
    async create(cameraId: number, input: unknown): Promise<Stream> {
      const camera = await requireCamera(cameraId);
      const { type, url, uid = defaultUid(camera, type) } = parseInput(StreamCreate, input);
      const [sameType] = await db
        .select({ uid: streams.uid })
        .from(streams)
        .where(and(eq(streams.cameraId, cameraId), eq(streams.type, type)));
      if (sameType) throw fieldError('type', `The camera already has a ${type} stream (${sameType.uid}).`);
      try {
        const [row] = await db
          .insert(streams)
          .values({
            uid,
            cameraId,
            type,
            sourceUrlEncrypted: ctx.secrets.seal(url),
            ...(await storedArchiveSettings(db, cameraId, type)),
          })
          .returning();
        ctx.logger.info('stream created', { uid, camera_id: cameraId, type });
        listener?.changed([uid]);
        return toStream(row!, open);
      } catch (error) {
        if (isUniqueViolation(error)) {
          // A concurrent request created this camera's stream of the same type between the check and the insert.
          if (constraintName(error) === 'streams_camera_type') throw fieldError('type', `The camera already has a ${type} stream.`);
          throw fieldError('uid', 'The uid has already been taken.');
        }
        throw error;
      }
    },

    async get(uid: string): Promise<Stream> {
      const [row] = await db.select().from(streams).where(eq(streams.uid, uid));
      if (!row) throw notFound(`Stream ${uid}`);
      return toStream(row, open);
    },

    /**
     * Stream.Restart: zeroes the reconnection data of every named stream and records when. All
     * or nothing: one unknown uid and no stream is touched.
     */
    async restart(input: unknown): Promise<string[]> {
      const params = parseInput(StreamRestartParams, input);
      const byCamera = typeof params === 'object' && !Array.isArray(params) ? params : null;
      // The parser leaves a `__proto__` key out of the object form; it still names no camera, so it fails the call.
      const droppedKeys = byCamera ? Object.keys(input as object).filter((key) => !Object.hasOwn(byCamera, key)) : [];
      if (byCamera && Object.keys(byCamera).length + droppedKeys.length === 0) {
        throw fieldError('params', 'The params field must name at least one camera.');
      }
      return db.transaction(async (tx) => {
        const rows = await resolveRestartTargets(tx, params, droppedKeys);
        const uids = rows.map((row) => row.uid);
        const now = ctx.now();
        await tx
          .update(streams)
          .set({
            reconnectAttempts: 0,
            reconnectsTotal: 0,
            lastError: null,
            lastErrorAt: null,
            reconnectionResetAt: now,
            updatedAt: now,
          })
          .where(inArray(streams.uid, uids));
        ctx.logger.info('streams restarted', { uids });
        return uids;
      }).then((uids) => {
        listener?.restarted(uids);
        return uids;
      });
    },

    /**
     * A device got an address: its camera's high and low streams are created, or their source
     * moved to the new address, from the camera's profile, with the camera's archive settings.
     */
    async onDeviceAddress(input: unknown): Promise<void> {
      const { mac, ip } = parseInput(DeviceAddress, input);
      const [camera] = await db.select().from(cameras).where(eq(cameras.mac, mac.toLowerCase()));
      if (!camera) throw fieldError('mac', 'The selected mac is invalid: no camera has this mac.');
      const credentials =
        camera.onvifLogin && camera.onvifPasswordEncrypted
          ? { login: camera.onvifLogin, password: open(camera.onvifPasswordEncrypted) }
          : null;
      // A camera without a profile but with ONVIF credentials has its addresses asked over ONVIF by its ingest.
      const useOnvif = !camera.service && credentials !== null;
      const profile: CameraProfile | undefined = useOnvif ? undefined : ctx.cameraProfiles[camera.service ?? 'generic'];
      if (!useOnvif && !profile) throw fieldError('mac', `The camera's profile ${camera.service} is no longer configured.`);
      const source = (type: StreamType) =>
        profile ? sourceUrl(profile[type], ip, credentials) : onvifSource(ip, camera.onvifPort, type);
      const uids = await db.transaction(async (tx) => {
        const upserted: string[] = [];
        // Concurrent callbacks for one camera take turns: the upsert's arbiter is (camera_id, type), so
        // two first-time inserts racing past it would otherwise collide on the uid index instead.
        await tx.select({ id: cameras.id }).from(cameras).where(eq(cameras.id, camera.id)).for('update');
        for (const type of ['high', 'low'] as const) {
          const values = {
            sourceUrlEncrypted: ctx.secrets.seal(source(type)),
            ...(await storedArchiveSettings(tx, camera.id, type)),
            updatedAt: ctx.now(),
          };
          const [row] = await tx
            .insert(streams)
            .values({ uid: defaultUid(camera, type), cameraId: camera.id, type, ...values })
            .onConflictDoUpdate({ target: [streams.cameraId, streams.type], set: values })
            .returning({ uid: streams.uid });
          upserted.push(row!.uid);
        }
        return upserted;
      }).catch(async (error: unknown) => {
        // Another camera's stream was given this camera's default uid as its custom uid: nothing is changed.
        if (isUniqueViolation(error) && constraintName(error) === 'streams_uid_unique') {
          const uids = (['high', 'low'] as const).map((type) => defaultUid(camera, type));
          const held = await db.select({ cameraId: streams.cameraId }).from(streams).where(inArray(streams.uid, uids));
          if (held.some((row) => row.cameraId !== camera.id)) {
            throw fieldError('mac', "A stream of another camera already holds this camera's stream uid; no stream was changed.");
          }
        }
        throw error;
      });
      ctx.logger.info('device address applied', { camera_id: camera.id, ip });
      listener?.changed(uids);
    },
  };
}

export type StreamService = ReturnType<typeof createStreamService>;
