import { operations, type Operation, type OperationName } from '@vss/schema';
import ky, { TimeoutError } from 'ky';
import type { z } from 'zod';
import { ConnectionError, contractViolation, errorFromResponse, parseByContract } from './errors';

type Operations = typeof operations;
type SuccessStatus = 200 | 201 | 204;
type SuccessSchema<N extends OperationName> = Operations[N]['responses'][Extract<
  keyof Operations[N]['responses'],
  SuccessStatus
>];

/** Media types handed back as bytes; any other type that is not JSON (playlists, pages, scripts) is text. */
type BinaryMediaType = `${'image' | 'video' | 'audio'}/${string}` | 'application/octet-stream';
const BINARY_MEDIA_TYPE = /^(?:(?:image|video|audio)\/|application\/octet-stream$)/;

type ProducesOf<N extends OperationName> = Operations[N] extends { produces: infer P extends string } ? P : undefined;

/**
 * What a successful call of operation N returns: for JSON, the output of the operation table's
 * response schema; for the media types in `produces`, bytes or text.
 */
export type ResponseOf<N extends OperationName> =
  ProducesOf<N> extends BinaryMediaType
    ? Uint8Array
    : ProducesOf<N> extends string
      ? string
      : SuccessSchema<N> extends z.ZodType
        ? z.output<SuccessSchema<N>>
        : undefined;

/** What operation N accepts as its body (the schema's input side: defaults may be left out). */
export type RequestBodyOf<N extends OperationName> = Operations[N] extends { body: infer B extends z.ZodType }
  ? z.input<B>
  : never;

type PathParamsOf<N extends OperationName> = Operations[N] extends { pathParams: infer P }
  ? { [K in keyof P]: P[K] extends 'integer' ? number : string }
  : never;

/** Where operation N is: its path parameters, if it has any, and a query. */
export type UrlInput<N extends OperationName> = ([PathParamsOf<N>] extends [never]
  ? { params?: undefined }
  : { params: PathParamsOf<N> }) & {
  query?: Record<string, string | number | undefined>;
};

export type CallInput<N extends OperationName> = UrlInput<N> & {
  body?: RequestBodyOf<N>;
  /**
   * Non-2xx statuses whose JSON body is an answer for the caller to read rather than an error to
   * throw: JSON-RPC carries its error objects on 400 and 500.
   */
  answers?: readonly number[];
};

export interface Reply<T> {
  status: number;
  headers: Headers;
  data: T;
}

export interface RetryOptions {
  /** Further attempts after the first one. */
  limit?: number;
  /** Delay before the first retry; each later one waits twice as long as the one before. */
  backoffMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  token?: string | undefined;
  fetch?: typeof globalThis.fetch | undefined;
  timeout?: number | false | undefined;
  retry?: RetryOptions | undefined;
  validateResponses?: boolean | undefined;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY = { limit: 2, backoffMs: 300 } as const;

export interface Transport {
  /** Calls one operation of the table and returns its validated answer with status and headers. */
  call<N extends OperationName>(name: N, input: CallInput<N>): Promise<Reply<ResponseOf<N>>>;
  /** The absolute URL of an operation, as `call` would request it. */
  url<N extends OperationName>(name: N, input: UrlInput<N>): string;
  readonly validateResponses: boolean;
  /**
   * Opens a long-lived response of an operation (an event stream) with the client's token: no
   * timeout, no retry. A non-2xx answer is thrown as the typed error; a failed request as a
   * ConnectionError.
   */
  open<N extends OperationName>(
    name: N,
    input: UrlInput<N> & { headers?: Record<string, string>; signal?: AbortSignal | undefined },
  ): Promise<Response>;
}

function expandPath(operation: Operation, params: Record<string, string | number> | undefined): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`Missing path parameter ${name} of ${operation.path}.`);
    return encodeURIComponent(String(value));
  });
}

const essenceOf = (contentType: string | null) => contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';

function isJsonContentType(contentType: string | null): boolean {
  const essence = essenceOf(contentType);
  return essence === 'application/json' || essence.endsWith('+json');
}

type BodyKind = 'json' | 'text' | 'binary';

const bodyKindOf = (operation: Operation): BodyKind =>
  !operation.produces || isJsonContentType(operation.produces)
    ? 'json'
    : BINARY_MEDIA_TYPE.test(operation.produces)
      ? 'binary'
      : 'text';

/** A success is read as the operation produces it; an error body is JSON when it says so, else text. */
async function readBody(response: Response, kind: BodyKind): Promise<unknown> {
  if (response.ok && kind === 'binary') return new Uint8Array(await response.arrayBuffer());
  const text = await response.text();
  if (response.ok && kind === 'text') return text;
  if (text === '') return undefined;
  if (!isJsonContentType(response.headers.get('content-type'))) return text;
  try {
    return JSON.parse(text);
  } catch {
    // A body that claims JSON but is not is still worth showing in the error.
    return text;
  }
}

function connectionError(error: unknown, operation: string): ConnectionError {
  const timeout = error instanceof TimeoutError;
  const reason = error instanceof Error ? error.message : String(error);
  return new ConnectionError({
    message: timeout ? `No answer from the server in time (${operation}).` : `Could not reach the server (${operation}): ${reason}`,
    operation,
    cause: error,
    timeout,
  });
}

/**
 * The SDK's single request pipeline: URL and auth from the operation table, ky for fetch and
 * timeouts, retries, status-to-error mapping and response validation. Namespaces only name the
 * operation and pass its parameters.
 */
export function createTransport(options: TransportOptions): Transport {
  // Validate early: a bad base URL would otherwise surface as a misleading ConnectionError later.
  const base = new URL(options.baseUrl).toString().replace(/\/+$/, '');
  const validateResponses = options.validateResponses ?? true;
  const limit = options.retry?.limit ?? DEFAULT_RETRY.limit;
  const backoffMs = options.retry?.backoffMs ?? DEFAULT_RETRY.backoffMs;
  const http = ky.create({
    timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
    // Statuses are the SDK's to interpret: each maps to a typed error below.
    throwHttpErrors: false,
    // Only reads are retried, and only when no response came back: a POST that reached the server
    // may have taken effect, so sending it again could, say, create a second camera; and a status
    // is the server's considered answer, which asking again would not change.
    retry: { limit, methods: ['get'], statusCodes: [], delay: (attempt) => backoffMs * 2 ** (attempt - 1) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  function url<N extends OperationName>(name: N, input: UrlInput<N>): string {
    const operation: Operation = operations[name];
    const path = expandPath(operation, input.params as Record<string, string | number> | undefined);
    const search = new URLSearchParams(definedEntries(input.query ?? {})).toString();
    return `${base}${path}${search ? `?${search}` : ''}`;
  }

  async function call<N extends OperationName>(name: N, input: CallInput<N>): Promise<Reply<ResponseOf<N>>> {
    const operation: Operation = operations[name];
    const kind = bodyKindOf(operation);
    const headers: Record<string, string> = {
      // Errors come as JSON whatever the operation produces.
      accept: kind === 'json' ? 'application/json' : `${operation.produces}, application/json;q=0.9`,
      // The specification asks for it on every request; without it the server may answer errors as HTML.
      'content-type': 'application/json',
    };
    // A media call that brings its own token in the query must be judged by that token, and the
    // server would look at the Authorization header first.
    const ownToken = operation.auth === 'access-token' && input.query?.token !== undefined;
    const sendsApiToken = operation.auth === 'api-token' || (operation.auth === 'access-token' && !ownToken);
    if (sendsApiToken && options.token) headers.authorization = `Bearer ${options.token}`;

    let response: Response;
    let body: unknown;
    try {
      response = await http(url(name, input), {
        method: operation.method,
        headers,
        ...(input.body !== undefined ? { json: input.body } : {}),
      });
      body = await readBody(response, kind);
    } catch (error) {
      throw connectionError(error, name);
    }

    const { status } = response;
    const answered = response.ok || (input.answers?.includes(status) === true && typeof body === 'object' && body !== null);
    if (!answered) throw errorFromResponse({ status, headers: response.headers, body, operation: name });
    const reply = (data: unknown) => ({ status, headers: response.headers, data: data as ResponseOf<N> });
    if (!validateResponses) return reply(body);
    const context = { status, body, operation: name, what: `The ${name} response (HTTP ${status})` };

    if (kind !== 'json') {
      // The table's schema of a media body only says "a body"; what can be checked is its type.
      const type = essenceOf(response.headers.get('content-type'));
      if (type === essenceOf(operation.produces ?? null)) return reply(body);
      throw contractViolation(context, `is ${type || 'untyped'}, not ${operation.produces}.`, type);
    }
    const schema = (operation.responses as Record<number, z.ZodType | null | undefined>)[status];
    return reply(schema ? parseByContract(schema, body, context) : body);
  }

  async function open<N extends OperationName>(
    name: N,
    input: UrlInput<N> & { headers?: Record<string, string>; signal?: AbortSignal | undefined },
  ): Promise<Response> {
    const operation: Operation = operations[name];
    const headers: Record<string, string> = {
      accept: `${operation.produces ?? 'application/json'}, application/json;q=0.9`,
      ...input.headers,
    };
    if (operation.auth === 'api-token' && options.token) headers.authorization = `Bearer ${options.token}`;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await fetchImpl(url(name, input), {
        method: operation.method.toUpperCase(),
        headers,
        ...(input.signal ? { signal: input.signal } : {}),
      });
    } catch (error) {
      throw connectionError(error, name);
    }
    if (response.ok) return response;
    let body: unknown;
    try {
      body = await readBody(response, 'json');
    } catch (error) {
      throw connectionError(error, name);
    }
    throw errorFromResponse({ status: response.status, headers: response.headers, body, operation: name });
  }

  return { call, url, validateResponses, open };
}

function definedEntries(query: Record<string, string | number | undefined>): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) entries[key] = String(value);
  return entries;
}
