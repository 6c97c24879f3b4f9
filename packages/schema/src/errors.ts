import { z } from 'zod';

/**
 * Stable error codes. Core throws them, the server maps each to one HTTP status, the SDK maps the
 * status back to a typed error class. A code never changes meaning once released.
 */
export const ERROR_CODES = [
  'bad_request',
  'validation_failed',
  'unauthenticated',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'gone',
  'device_error',
  'device_timeout',
  'database_unavailable',
  'internal',
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Body of every JSON error except validation failures. */
export const ErrorBody = z.object({
  message: z.string(),
  code: ErrorCode.optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** 422 body: field paths (dotted for nested fields) to the reasons that field was refused. */
export const ValidationErrors = z.record(z.string(), z.array(z.string()));
export type ValidationErrors = z.infer<typeof ValidationErrors>;

export const ValidationErrorBody = z.object({
  message: z.string(),
  errors: ValidationErrors,
});
export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>;

export const UNAUTHENTICATED_MESSAGE = 'Unauthenticated.';
