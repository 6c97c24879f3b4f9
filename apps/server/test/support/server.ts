import type { MediaOptions, VssOptions } from '@vss/core';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from '@vss/core/testing';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/http/log';
import { startServer, type RunningServer } from '../../src/server';

export { databaseKinds } from '@vss/core/testing';

export interface TestServer extends RunningServer {
  /** An API token issued through the console endpoint. */
  token: string;
  /** The database the server runs on; its cleanup() drops it, which is how tests take it away. */
  database: TestDatabase;
  /** The server's data directory (media files live under `media/`). */
  dataDir: string;
  /** Every log line the server wrote, parsed. */
  logs: Record<string, unknown>[];
  /** fetch against the server with JSON headers and the API token unless told otherwise. */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export interface TestRequestInit extends Omit<RequestInit, 'body'> {
  /** A value is sent as JSON; a string is sent as it is. */
  body?: unknown;
  /** false sends no token; a string sends that one. */
  token?: string | false;
}

/**
 * Starts the real server on a free loopback port, on a fresh PGlite directory or a fresh
 * PostgreSQL database, and issues an API token the way an operator would.
 */
export async function startTestServer(
  kind: DatabaseKind,
  overrides: Partial<Omit<VssOptions, 'media'>> & {
    env?: Record<string, string>;
    /** Turns ingest on, with these options over the configured ones (the data directory is the server's). */
    media?: Partial<MediaOptions>;
  } = {},
): Promise<TestServer> {
  const database = await createTestDatabase(kind, { databaseUrl: process.env.DATABASE_URL });
  const dataDir = database.dataDir ?? (await mkdtemp(join(tmpdir(), 'vss-server-')));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    VSS_DATA_DIR: dataDir,
    VSS_LOG_LEVEL: 'debug',
    // No ingest unless a test asks for it: most tests' stream URLs name hosts that must never be dialled.
    VSS_MEDIA: overrides.media ? 'on' : 'off',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...overrides.env,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => void logs.push(JSON.parse(line)) });
  const { env: _env, media, ...vssOverrides } = overrides;
  const server = await startServer(config, {
    encryptionKey: randomBytes(32),
    ...vssOverrides,
    ...(media && config.media ? { media: { ...config.media, dataDir, ...media } } : {}),
    logger,
  });

  async function request(path: string, init: TestRequestInit = {}) {
    const { body, token, headers, ...rest } = init;
    const merged = new Headers(headers);
    if (!merged.has('content-type') && body !== undefined) merged.set('content-type', 'application/json');
    if (!merged.has('accept')) merged.set('accept', 'application/json');
    const bearer = token === undefined ? testServer.token : token;
    if (bearer !== false) merged.set('authorization', `Bearer ${bearer}`);
    return fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...rest,
      headers: merged,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  const testServer: TestServer = {
    ...server,
    token: '',
    database,
    dataDir,
    logs,
    request,
    async stop() {
      await server.close();
      await database.cleanup();
      if (!database.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  const issued = await request('/api/auth/token/api/', { body: { client: 'tests', duration: 0 }, token: false });
  testServer.token = (await issued.json()) as string;
  return testServer;
}

/** Creates a tree element and a camera in it; returns the camera as the API shows it. */
export async function createCamera(server: TestServer, fields: Record<string, unknown> = {}) {
  const suffix = randomBytes(5).toString('hex').match(/../g)!.join(':');
  const group = await (await server.request('/api/admin/v1/tree-elements', { body: { name: 'Group' } })).json();
  const created = await server.request('/api/v2/billing/cameras', {
    body: { name: 'Camera', mac: `02:${suffix}`, group_id: group.id, ...fields },
  });
  if (created.status !== 201) throw new Error(`camera creation failed: ${created.status} ${await created.text()}`);
  const { id } = await created.json();
  return (await server.request(`/api/admin/v1/cameras/${id}`)).json();
}
