import { createAnalyticCases } from './namespaces/analytics';
import { createAuth } from './namespaces/auth';
import { createCameras } from './namespaces/cameras';
import { createEvents } from './namespaces/events';
import { createIntercoms } from './namespaces/intercoms';
import { createMedia } from './namespaces/media';
import { createStreams } from './namespaces/streams';
import { createSystem } from './namespaces/system';
import { createFolders, createTreeElements } from './namespaces/tree';
import { createWebhooks } from './namespaces/webhooks';
import { createRpc } from './rpc';
import { createTransport, type RetryOptions } from './transport';

export interface ClientOptions {
  /** Where the server is, e.g. `https://vss.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** API token, sent as `Authorization: Bearer`. Only `auth.issueApiToken` and `system` work without one. */
  token?: string;
  /** A fetch to use instead of the global one (a proxy agent, extra headers, tests). */
  fetch?: typeof globalThis.fetch;
  /** Per attempt, in milliseconds; `false` waits forever. Default 30 000. */
  timeout?: number | false;
  /** Retries of reads (GET) that got no response. POSTs are never retried. Default `{ limit: 2, backoffMs: 300 }`. */
  retry?: RetryOptions;
  /** Check every response against the API's schemas and throw ResponseValidationError on a mismatch. Default true. */
  validateResponses?: boolean;
}

/**
 * A client of one VSS server. Each namespace is a thin layer over the one request pipeline, so
 * a new area of the API is a new namespace factory added here.
 */
export function createClient(options: ClientOptions) {
  const transport = createTransport(options);
  const rpc = createRpc(transport);
  const events = createEvents(transport);
  return {
    auth: createAuth(transport),
    streams: createStreams(transport, rpc),
    cameras: createCameras(transport),
    treeElements: createTreeElements(transport),
    folders: createFolders(transport),
    analyticCases: createAnalyticCases(transport, events),
    intercoms: createIntercoms(transport),
    media: createMedia(transport),
    system: createSystem(transport),
    events,
    webhooks: createWebhooks(transport),
    rpc,
  };
}

export type VssClient = ReturnType<typeof createClient>;
