import type { ErrorCode, JsonRpcResponse } from '@vss/schema';
import { JSONRPC_ERRORS } from '@vss/schema';

/**
 * The one place an error code becomes an HTTP status. `satisfies` makes a code added to the schema
 * without a status here a compile error instead of a silent 500.
 */
export const HTTP_STATUS = {
  bad_request: 400,
  validation_failed: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  gone: 410,
  device_error: 502,
  device_timeout: 504,
  database_unavailable: 503,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

export function httpStatus(code: ErrorCode): number {
  return HTTP_STATUS[code];
}

const codeByStatus = new Map<number, ErrorCode>(
  Object.entries(HTTP_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/** The code for a status that h3 chose itself (its router's 404 and 405), if the table has one. */
export function errorCodeForStatus(status: number): ErrorCode | undefined {
  return codeByStatus.get(status);
}

// The specification puts "method not found" at HTTP 400, so every error the caller caused is a
// 400; only the server's own failure is a 500.
const JSONRPC_HTTP_STATUS = new Map<number, number>([
  [JSONRPC_ERRORS.parseError, 400],
  [JSONRPC_ERRORS.invalidRequest, 400],
  [JSONRPC_ERRORS.methodNotFound, 400],
  [JSONRPC_ERRORS.invalidParams, 400],
  [JSONRPC_ERRORS.internalError, 500],
]);

/**
 * HTTP status of a single (non-batch) JSON-RPC response. Codes outside the standard five are
 * server-defined (-32000 to -32099) failures, hence 500.
 */
export function jsonRpcHttpStatus(response: JsonRpcResponse): number {
  if (!('error' in response)) return 200;
  return JSONRPC_HTTP_STATUS.get(response.error.code) ?? 500;
}
