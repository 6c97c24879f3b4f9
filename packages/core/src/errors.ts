import type { ErrorCode, ValidationErrors } from '@vss/schema';
import { issuesToErrors, validationMessage } from '@vss/schema';
import type { z } from 'zod';
import { isDatabaseUnreachable } from './db/errors';

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

/** A NUL or a lone UTF-16 surrogate: PostgreSQL text and jsonb cannot hold either. */
// eslint-disable-next-line no-control-regex -- matching U+0000 is the point.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first field (dotted path) whose string or key the database could not store, so that such
 * input is refused as a validation error instead of failing in the database. Iterative, as input
 * may be nested as deep as its size allows.
 */
function unstorableField(input: unknown): string | undefined {
  const pending: [unknown, string][] = [[input, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return path;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (UNSTORABLE.test(key)) return path;
        pending.push([item, path === '' ? key : `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

/** Parses input against a contract, turning failures into a 422-style VssError. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const field = unstorableField(input);
  if (field !== undefined) {
    const name = field === '' ? 'body' : field;
    throw fieldError(name, `The ${name.replaceAll('_', ' ')} field must not contain NUL characters or unpaired surrogates.`);
  }
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationError(issuesToErrors(result.error.issues));
  return result.data;
}

export const isVssError = (error: unknown): error is VssError => error instanceof VssError;

/**
 * What core lets escape, as callers should see it: a lost database becomes `database_unavailable`;
 * anything else is returned as it is.
 */
export function normalizeError(error: unknown): unknown {
  if (!(error instanceof VssError) && isDatabaseUnreachable(error)) {
    return new VssError('database_unavailable', 'The database is unreachable.');
  }
  return error;
}
