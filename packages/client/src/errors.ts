import type { ValidationErrors } from '@vss/schema';
import type { z } from 'zod';

/**
 * Every `code` the SDK can throw. Codes are part of the public API: callers branch on them
 * instead of on `instanceof`, which breaks when two copies of the SDK (ESM and CJS, or two
 * versions) end up in one program.
 */
export type VssClientErrorCode =
  | 'validation_failed'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'gone'
  | 'jsonrpc_error'
  | 'device_error'
  | 'server_error'
  | 'connection_error'
  | 'response_validation_failed';

export interface VssClientErrorInit {
  message: string;
  status?: number | undefined;
  body?: unknown;
  /** The name of the operation in the API's operation table, e.g. `createCameraV2`. */
  operation?: string | undefined;
  cause?: unknown;
}

export abstract class VssClientError extends Error {
  abstract readonly code: VssClientErrorCode;
  /** HTTP status; absent when no response arrived. */
  readonly status: number | undefined;
  /** The response body: parsed JSON when it was JSON, otherwise the text; undefined when there was none. */
  readonly body: unknown;
  readonly operation: string | undefined;
  /** The server's own error code from the body (`payload_too_large`, `database_unavailable`, ...), when it sent one. */
  readonly serverCode: string | undefined;

  constructor(init: VssClientErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.body = init.body;
    this.operation = init.operation;
    this.serverCode = serverCodeOf(init.body);
  }
}

/** 422: the server refused the request's content; `errors` maps dotted field paths to reasons. */
export class ValidationError extends VssClientError {
  readonly code = 'validation_failed';
  override readonly name = 'ValidationError';
  readonly errors: ValidationErrors;
  constructor(init: VssClientErrorInit & { errors: ValidationErrors }) {
    super(init);
    this.errors = init.errors;
  }
}

/** 401: the token is missing, unknown, revoked or expired. */
export class UnauthorizedError extends VssClientError {
  readonly code = 'unauthenticated';
  override readonly name = 'UnauthorizedError';
}

/** 403: e.g. an API token requested from anywhere but the server's own console. */
export class ForbiddenError extends VssClientError {
  readonly code = 'forbidden';
  override readonly name = 'ForbiddenError';
}

export class NotFoundError extends VssClientError {
  readonly code = 'not_found';
  override readonly name = 'NotFoundError';
}

/** 410: a retired API version (camera creation v1 after its sunset). */
export class GoneError extends VssClientError {
  readonly code = 'gone';
  override readonly name = 'GoneError';
  /** When the operation stopped working, from the Sunset header (RFC 8594). */
  readonly sunset: Date | undefined;
  constructor(init: VssClientErrorInit & { sunset: Date | undefined }) {
    super(init);
    this.sunset = init.sunset;
  }
}

/** A JSON-RPC error object, whatever the HTTP status that carried it. */
export class JsonRpcError extends VssClientError {
  readonly code = 'jsonrpc_error';
  override readonly name = 'JsonRpcError';
  /** The JSON-RPC error code, e.g. -32602 for invalid params. */
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(init: VssClientErrorInit & { rpcCode: number; data?: unknown }) {
    super(init);
    this.rpcCode = init.rpcCode;
    this.data = init.data;
  }
}

/** 502 / 504: a device behind the server (an intercom) refused, answered badly, or not in time. */
export class DeviceError extends VssClientError {
  readonly code = 'device_error';
  override readonly name = 'DeviceError';
  /** True when the device did not answer in time (504). */
  readonly timeout: boolean;
  constructor(init: VssClientErrorInit & { timeout: boolean }) {
    super(init);
    this.timeout = init.timeout;
  }
}

/** Any other status: 5xx failures, and the statuses the SDK does not expect (400, 405, 413, 415, 503...). */
export class ServerError extends VssClientError {
  readonly code = 'server_error';
  override readonly name = 'ServerError';
}

/** No response: the network failed, the server could not be reached, or it did not answer in time. */
export class ConnectionError extends VssClientError {
  readonly code = 'connection_error';
  override readonly name = 'ConnectionError';
  /** True when the client's own timeout ran out. */
  readonly timeout: boolean;
  constructor(init: VssClientErrorInit & { timeout: boolean }) {
    super(init);
    this.timeout = init.timeout;
  }
}

/** A response arrived but does not match the API's contract (see `validateResponses`). */
export class ResponseValidationError extends VssClientError {
  readonly code = 'response_validation_failed';
  override readonly name = 'ResponseValidationError';
  readonly issues: readonly z.core.$ZodIssue[];
  constructor(init: VssClientErrorInit & { issues: readonly z.core.$ZodIssue[] }) {
    super(init);
    this.issues = init.issues;
  }
}

interface ContractContext {
  status: number;
  body: unknown;
  operation: string;
  /** What broke the contract, for the message: "The createCameraV2 response (HTTP 201)". */
  what: string;
}

/** A ResponseValidationError of one issue, for what a schema cannot say (an id, a media type). */
export function contractViolation(context: ContractContext, problem: string, input: unknown = context.body): ResponseValidationError {
  const message = `${context.what} ${problem}`;
  return new ResponseValidationError({
    message,
    status: context.status,
    body: context.body,
    operation: context.operation,
    issues: [{ code: 'custom', path: [], message, input }],
  });
}

/** `value` parsed by its contract `schema`; a ResponseValidationError naming the first issues otherwise. */
export function parseByContract<S extends z.ZodType>(schema: S, value: unknown, context: ContractContext): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const { issues } = parsed.error;
  const summary = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`)
    .join('; ');
  throw new ResponseValidationError({
    message: `${context.what} does not match the API contract: ${summary}`,
    status: context.status,
    body: context.body,
    operation: context.operation,
    issues,
  });
}

/** Every concrete error the SDK throws; `switch (error.code)` narrows it to one class. */
export type AnyVssClientError =
  | ValidationError
  | UnauthorizedError
  | ForbiddenError
  | NotFoundError
  | GoneError
  | JsonRpcError
  | DeviceError
  | ServerError
  | ConnectionError
  | ResponseValidationError;

/**
 * Duck-typed rather than `instanceof`, so an error from another copy of the SDK is recognised
 * too. Only the SDK's own codes qualify.
 */
export function isVssClientError(error: unknown): error is AnyVssClientError {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && CODES.has(code);
}

const CODES = new Set<string>([
  'validation_failed',
  'unauthenticated',
  'forbidden',
  'not_found',
  'gone',
  'jsonrpc_error',
  'device_error',
  'server_error',
  'connection_error',
  'response_validation_failed',
] satisfies VssClientErrorCode[]);

/** What the SDK knows about a response that it will not hand back as data. */
export interface FailedResponse {
  status: number;
  headers: Headers;
  body: unknown;
  operation?: string | undefined;
}

function serverCodeOf(body: unknown): string | undefined {
  const code = isRecord(body) ? body.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(response: FailedResponse): string {
  const { body, status } = response;
  if (isRecord(body) && typeof body.message === 'string' && body.message !== '') return body.message;
  if (typeof body === 'string' && body.trim() !== '' && body.length <= 200) return body.trim();
  return `The server answered with HTTP ${status}.`;
}

function validationErrorsOf(body: unknown): ValidationErrors {
  if (!isRecord(body) || !isRecord(body.errors)) return {};
  const errors: ValidationErrors = {};
  for (const [field, reasons] of Object.entries(body.errors)) {
    if (Array.isArray(reasons)) errors[field] = reasons.filter((reason): reason is string => typeof reason === 'string');
  }
  return errors;
}

/** An HTTP-date as in the Sunset header; undefined when absent or unreadable. */
export function parseHttpDate(value: string | null): Date | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time);
}

type ErrorFactory = (init: VssClientErrorInit, response: FailedResponse) => VssClientError;

/** The one place a status becomes an error class. Anything not listed is a ServerError. */
const ERROR_BY_STATUS: Readonly<Record<number, ErrorFactory>> = {
  401: (init) => new UnauthorizedError(init),
  403: (init) => new ForbiddenError(init),
  404: (init) => new NotFoundError(init),
  410: (init, response) => new GoneError({ ...init, sunset: parseHttpDate(response.headers.get('sunset')) }),
  422: (init, response) => new ValidationError({ ...init, errors: validationErrorsOf(response.body) }),
  502: (init) => new DeviceError({ ...init, timeout: false }),
  504: (init) => new DeviceError({ ...init, timeout: true }),
};

export function errorFromResponse(response: FailedResponse): VssClientError {
  const init: VssClientErrorInit = {
    message: messageOf(response),
    status: response.status,
    body: response.body,
    operation: response.operation,
  };
  const factory = ERROR_BY_STATUS[response.status] ?? ((init) => new ServerError(init));
  return factory(init, response);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
