import type { Principal, Vss } from '@vss/core';
import { VssError, type Logger } from '@vss/core';
import {
  buildOpenApiDocument,
  operations,
  UID_PATTERN,
  type Operation,
  type OperationName,
} from '@vss/schema';
import {
  createApp as createH3App,
  createRouter,
  eventHandler,
  getQuery,
  send,
  sendNoContent,
  setResponseHeader,
  setResponseHeaders,
  setResponseStatus,
  type H3Event,
} from 'h3';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DOCS_HEADERS, renderDocsPage } from './docs-page';
import { mountEventRoutes } from './event-routes';
import { readJsonBody, readRawBody } from './http/body';
import { extractToken, isConsoleRequest } from './http/client';
import { sendError } from './http/errors';
import { requestLogFields } from './http/log';
import { jsonRpcHttpStatus } from './http/status';
import { authorizePlayback, mountMediaRoutes } from './media-routes';

export interface AppOptions {
  vss: Vss;
  logger: Logger;
  /** The largest request body accepted, in bytes. */
  bodyLimit: number;
  version: string;
}

export interface RequestContext {
  event: H3Event;
  params: Record<string, number | string>;
  body: unknown;
  principal: Principal | undefined;
}

/** What a handler answers: a JSON body with a status, no content, or another media type (a stream is piped). */
export type Reply =
  | { status: number; json: unknown }
  | { status: 204 }
  | { status: number; type: string; body: string | Buffer | Readable };

export interface MountOptions {
  headers?: () => Record<string, string>;
  rawBody?: boolean;
}
export type Mount = (
  name: OperationName,
  handler: (request: RequestContext) => Promise<Reply> | Reply,
  options?: MountOptions,
) => void;

const ok = (json: unknown): Reply => ({ status: 200, json });
const created = (json: unknown): Reply => ({ status: 201, json });
const noContent: Reply = { status: 204 };

const MAX_ID = 2_147_483_647;

/** A segment with a malformed escape (`%zz`) names nothing; decoding it must not throw a 500. */
function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** A path parameter that cannot name anything is an unknown resource, not a malformed request. */
function pathParams(event: H3Event, operation: Operation) {
  const params: Record<string, number | string> = {};
  for (const [name, kind] of Object.entries(operation.pathParams ?? {})) {
    const segment = event.context.params?.[name] ?? '';
    const suffix = literalAfter(operation.path, name);
    const raw = segment.endsWith(suffix) ? decodePathSegment(segment.slice(0, segment.length - suffix.length)) : undefined;
    if (raw === undefined) throw new VssError('not_found', 'Not found.');
    if (kind === 'integer') {
      const id = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : NaN;
      if (!(id <= MAX_ID)) throw new VssError('not_found', 'Not found.');
      params[name] = id;
    } else {
      if (!UID_PATTERN.test(raw)) throw new VssError('not_found', 'Not found.');
      params[name] = raw;
    }
  }
  return params;
}

// The router matches whole path segments: `{segment}.ts` is routed as `:segment`, and the literal
// after the parameter (which players such as ffmpeg's HLS demuxer insist on) is checked by pathParams.
const toRouterPath = (path: string) => path.replace(/\{(\w+)\}[^/]*/g, ':$1');
const literalAfter = (path: string, name: string) => new RegExp(`\\{${name}\\}([^/]*)`).exec(path)?.[1] ?? '';

/** Documented paths are mounted as written; the same path with or without its trailing slash works too. */
const pathVariants = (path: string) => [path, path.endsWith('/') ? path.slice(0, -1) : `${path}/`];

/** Writes a reply that is not JSON; a client going away in the middle of a stream is no error. */
async function sendBody(event: H3Event, reply: Extract<Reply, { type: string }>) {
  setResponseStatus(event, reply.status);
  setResponseHeader(event, 'content-type', reply.type);
  if (!(reply.body instanceof Readable)) return send(event, reply.body);
  try {
    await pipeline(reply.body, event.node.res);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  }
  // h3 takes a returned response object as answered, even one the client hung up on.
  return event.node.res;
}

/** RFC 9745 Deprecation and RFC 8594 Sunset headers of camera creation v1. */
function v1Headers(vss: Vss): Record<string, string> {
  const { deprecatedSince, sunset } = vss.cameras.v1Lifecycle();
  return {
    Deprecation: `@${Math.floor(deprecatedSince.getTime() / 1000)}`,
    Sunset: sunset.toUTCString(),
    Link: '</api/v2/billing/cameras>; rel="successor-version"',
  };
}

export function createApp({ vss, logger, bodyLimit, version }: AppOptions) {
  const started = new WeakMap<H3Event, number>();
  const app = createH3App({
    onRequest: (event) => void started.set(event, performance.now()),
    onError: (error, event) => sendError(event, error, logger),
    onAfterResponse: (event) => {
      const duration = performance.now() - (started.get(event) ?? performance.now());
      logger.info('request', requestLogFields(event, event.node.res.statusCode, duration));
    },
  });
  const router = createRouter({ preemptive: true });
  /** Router path to the methods mounted on it, for the Allow header of a 405 (RFC 9110 §15.5.6). */
  const allowedMethods = new Map<string, Set<string>>();

  const mount: Mount = (name, handler, options = {}) => {
    const operation: Operation = operations[name];
    const handle = eventHandler(async (event) => {
      if (options.headers) setResponseHeaders(event, options.headers());
      let principal: Principal | undefined;
      if (operation.auth === 'api-token') principal = await vss.tokens.authenticate(extractToken(event));
      if (operation.auth === 'access-token') principal = await authorizePlayback(vss, event);
      if (operation.auth === 'loopback' && !isConsoleRequest(event)) {
        throw new VssError('forbidden', 'API tokens are issued only from the server console (localhost).');
      }
      const params = pathParams(event, operation);
      const body = options.rawBody
        ? await readRawBody(event, bodyLimit)
        : operation.body
          ? await readJsonBody(event, { limitBytes: bodyLimit, required: operation.bodyRequired ?? false })
          : undefined;
      const reply = await handler({ event, params, body, principal });
      if ('type' in reply) return sendBody(event, reply);
      if (!('json' in reply)) return sendNoContent(event, reply.status);
      setResponseStatus(event, reply.status);
      return send(event, JSON.stringify(reply.json), 'application/json');
    });
    for (const path of pathVariants(operation.path)) {
      router.use(toRouterPath(path), handle, operation.method);
      const methods = allowedMethods.get(toRouterPath(path)) ?? new Set<string>();
      allowedMethods.set(toRouterPath(path), methods.add(operation.method.toUpperCase()));
    }
  };

  const id = (request: RequestContext, name: string) => request.params[name] as number;

  mount('issueApiToken', async ({ body }) => ok(await vss.tokens.issueApiToken(body)));
  mount('issueAccessToken', async ({ body }) => ok(await vss.tokens.issueAccessToken(body)));

  // JSON-RPC answers its own parse errors, so it takes the raw text rather than parsed JSON.
  mount(
    'jsonRpc',
    async ({ body }) => {
      const response = await vss.jsonRpc(body as string);
      if (response === undefined) return noContent;
      return { status: Array.isArray(response) ? 200 : jsonRpcHttpStatus(response), json: response };
    },
    { rawBody: true },
  );

  mount('createTreeElement', async ({ body }) => created(await vss.tree.createTreeElement(body)));
  mount('listTreeElements', async () => ok(await vss.tree.listTreeElements()));
  mount('getTreeElement', async (r) => ok(await vss.tree.getTreeElement(id(r, 'id'))));
  mount('createFolder', async (r) => created(await vss.tree.createFolder(id(r, 'id'), r.body)));
  mount('listFolders', async (r) => ok(await vss.tree.listFolders(id(r, 'id'))));

  mount('createCameraV2', async ({ body }) => created(await vss.cameras.createV2(body)));
  mount('createCameraV1', async ({ body }) => created(await vss.cameras.createV1(body)), {
    headers: () => v1Headers(vss),
  });
  mount('listCameras', async ({ event }) => ok(await vss.cameras.list(getQuery(event))));
  mount('getCamera', async (r) => ok(await vss.cameras.get(id(r, 'camera'))));

  mount('createStream', async (r) => created(await vss.streams.create(id(r, 'camera'), r.body)));
  mount('getStream', async (r) => ok(await vss.streams.get(r.params.uid as string)));
  mount('deviceAddress', async ({ body }) => {
    await vss.streams.onDeviceAddress(body);
    return noContent;
  });

  mount('createAnalyticsCase', async (r) => created(await vss.analyticCases.create(id(r, 'camera'), r.body)));
  mount('getAnalyticsCase', async (r) => ok(await vss.analyticCases.get(id(r, 'camera'), id(r, 'analytic_case_camera'))));
  mount('stopAnalyticsCase', async (r) =>
    ok(await vss.analyticCases.stop(id(r, 'camera'), id(r, 'analytic_case_camera'), r.body)),
  );
  mount('restartAnalyticsCase', async (r) =>
    ok(await vss.analyticCases.restart(id(r, 'camera'), id(r, 'analytic_case_camera'), r.body)),
  );

  mount('createIntercom', async ({ body }) => created(await vss.intercoms.create(body)));
  mount('listIntercoms', async () => ok(await vss.intercoms.list()));
  mount('getIntercom', async (r) => ok(await vss.intercoms.get(id(r, 'intercom'))));
  mount('restartIntercom', async (r) => {
    await vss.intercoms.restart(id(r, 'intercom'), r.body);
    return noContent;
  });

  mountMediaRoutes(mount, vss);
  mountEventRoutes(mount, vss);

  mount('health', async () => {
    if (!(await vss.healthy())) throw new VssError('database_unavailable', 'The database is unreachable.');
    return ok({ status: 'ok' });
  });
  const openApiDocument = buildOpenApiDocument({ version });
  mount('openApi', () => ok(openApiDocument));
  const docsPage = renderDocsPage(openApiDocument);
  mount('docs', () => ({ status: 200, type: 'text/html; charset=utf-8', body: docsPage }), { headers: () => DOCS_HEADERS });

  // Any other method on a known path: 405 naming the methods that path has.
  for (const [path, methods] of allowedMethods) {
    const Allow = [...methods].join(', ');
    router.use(
      path,
      eventHandler(() => {
        throw new VssError('method_not_allowed', 'Method Not Allowed.', { headers: { Allow } });
      }),
    );
  }

  app.use(router);
  return app;
}
