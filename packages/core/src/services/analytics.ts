import {
  AnalyticsCaseCreate,
  AnalyticsCaseRestart,
  type AnalyticsCase,
  type AnalyticsCaseStatus,
} from '@vss/schema';
import { and, eq } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { analyticCases, cameras } from '../db/schema';
import { fieldError, notFound, parseInput, validationError } from '../errors';
import { noEmit, type Emit } from '../events/bus';
import { iso } from './serialize';

type CaseRow = typeof analyticCases.$inferSelect;

const toAnalyticsCase = (row: CaseRow): AnalyticsCase => ({
  id: row.id,
  camera_id: row.cameraId,
  kind: row.kind as AnalyticsCase['kind'],
  status: row.status as AnalyticsCaseStatus,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

export function createAnalyticsService(ctx: CoreContext, emit: Emit = noEmit) {
  const { db } = ctx;

  async function requireCamera(cameraId: number) {
    const [camera] = await db.select({ id: cameras.id }).from(cameras).where(eq(cameras.id, cameraId));
    if (!camera) throw notFound(`Camera ${cameraId}`);
  }

  /** A case is found only through its own camera: a case of another camera is 404. */
  async function requireCase(cameraId: number, caseId: number) {
    await requireCamera(cameraId);
    const [row] = await db
      .select()
      .from(analyticCases)
      .where(and(eq(analyticCases.id, caseId), eq(analyticCases.cameraId, cameraId)));
    if (!row) throw notFound(`Analytics case ${caseId} of camera ${cameraId}`);
    return row;
  }

  /** The sample body repeats the path parameters; a body that names another case is refused. */
  function checkBodyAgrees(cameraId: number, caseId: number, body: unknown) {
    if (body === undefined) return;
    const { camera, analytic_case_camera } = parseInput(AnalyticsCaseRestart, body);
    const errors: Record<string, string[]> = {};
    if (camera !== undefined && camera !== cameraId) errors.camera = ['The camera field must match the path.'];
    if (analytic_case_camera !== undefined && analytic_case_camera !== caseId) {
      errors.analytic_case_camera = ['The analytic case camera field must match the path.'];
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);
  }

  async function setStatus(row: CaseRow, status: AnalyticsCaseStatus, onlyFrom?: AnalyticsCaseStatus) {
    const [updated] = await db
      .update(analyticCases)
      .set({ status, updatedAt: ctx.now() })
      .where(
        and(
          eq(analyticCases.id, row.id),
          onlyFrom === undefined ? undefined : eq(analyticCases.status, onlyFrom),
        ),
      )
      .returning();
    if (updated) {
      ctx.logger.info('analytics case status changed', { id: row.id, from: row.status, to: status });
      await emit('analytics_case.status', {
        id: row.id,
        camera_id: row.cameraId,
        from: row.status as AnalyticsCaseStatus,
        to: status,
      });
    }
    return updated;
  }

  const notStoppedError = (status: string) =>
    fieldError('status', `The analytics case can be restarted only when it is STOPPED; it is ${status}.`);

  return {
    async create(cameraId: number, input: unknown): Promise<AnalyticsCase> {
      await requireCamera(cameraId);
      const { kind } = parseInput(AnalyticsCaseCreate, input);
      const [row] = await db.insert(analyticCases).values({ cameraId, kind }).returning();
      return toAnalyticsCase(row!);
    },

    async get(cameraId: number, caseId: number): Promise<AnalyticsCase> {
      return toAnalyticsCase(await requireCase(cameraId, caseId));
    },

    async stop(cameraId: number, caseId: number, body?: unknown): Promise<AnalyticsCase> {
      const row = await requireCase(cameraId, caseId);
      checkBodyAgrees(cameraId, caseId, body);
      if (row.status === 'STOPPED') return toAnalyticsCase(row);
      return toAnalyticsCase((await setStatus(row, 'STOPPED')) ?? row);
    },

    /** Restart is allowed only from STOPPED; the case becomes PENDING. */
    async restart(cameraId: number, caseId: number, body?: unknown): Promise<AnalyticsCase> {
      const row = await requireCase(cameraId, caseId);
      checkBodyAgrees(cameraId, caseId, body);
      if (row.status !== 'STOPPED') throw notStoppedError(row.status);
      // The status is checked again in the update, so two concurrent restarts cannot both win.
      const updated = await setStatus(row, 'PENDING', 'STOPPED');
      if (!updated) throw notStoppedError((await requireCase(cameraId, caseId)).status);
      return toAnalyticsCase(updated);
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
