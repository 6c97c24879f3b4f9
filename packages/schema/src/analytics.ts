import { z } from 'zod';
import { Id, Timestamp } from './common';

export const ANALYTICS_KINDS = ['motion_detection'] as const;
export const AnalyticsKind = z.enum(ANALYTICS_KINDS);

export const ANALYTICS_CASE_STATUSES = ['CREATED', 'PENDING', 'WORKING', 'PAUSED', 'DOWN', 'STOPPED'] as const;
export const AnalyticsCaseStatus = z.enum(ANALYTICS_CASE_STATUSES);
export type AnalyticsCaseStatus = z.infer<typeof AnalyticsCaseStatus>;

export const AnalyticsCaseCreate = z.object({ kind: AnalyticsKind });
export type AnalyticsCaseCreate = z.input<typeof AnalyticsCaseCreate>;

export const AnalyticsCase = z.object({
  id: z.int(),
  camera_id: z.int(),
  kind: AnalyticsKind,
  status: AnalyticsCaseStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type AnalyticsCase = z.infer<typeof AnalyticsCase>;

/** The specification's sample body repeats the path parameters; when sent they must agree. */
export const AnalyticsCaseRestart = z.object({
  camera: Id.optional(),
  analytic_case_camera: Id.optional(),
});
export type AnalyticsCaseRestart = z.input<typeof AnalyticsCaseRestart>;
