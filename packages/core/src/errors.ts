import type { ErrorCode, ValidationErrors } from '@vss/schema';
import { issuesToErrors, validationMessage } from '@vss/schema';
import type { z } from 'zod';

/**
 * The one error type core throws on purpose. `code` is stable and is all the server needs to choose
 * a status; `message` is safe to show to a caller (it never carries a secret or a stack).
 */
export class VssError extends Error {
  override readonly name = 'VssError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { errors?: ValidationErrors; data?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export function validationError(errors: ValidationErrors): VssError {
  return new VssError('validation_failed', validationMessage(errors), { errors });
}

/** One field refused for one reason. */
export function fieldError(field: string, reason: string): VssError {
  return validationError({ [field]: [reason] });
}

export function notFound(what: string): VssError {
  return new VssError('not_found', `${what} not found.`);
}

/** Parses input against a contract, turning failures into a 422-style VssError. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationError(issuesToErrors(result.error.issues));
  return result.data;
}

export const isVssError = (error: unknown): error is VssError => error instanceof VssError;
