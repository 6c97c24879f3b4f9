import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from './server';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */
/** A parsed JSON response body; tests check its fields one by one. */
export type Json = any;

/** A clock a test moves by hand, for `startTestServer(kind, { now: clock.now })`. Frozen until moved. */
export interface Clock {
  now: () => Date;
  set(date: Date): void;
  advance(ms: number): void;
}

export function createClock(start: Date = new Date()): Clock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = date.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/** A locally administered MAC address no other test uses, in lower case. */
export function randomMac(): string {
  return `02:${randomBytes(5).toString('hex').match(/../g)!.join(':')}`;
}

/** A unique string for keys, external ids and uids (it matches the uid pattern). */
export function uniqueName(prefix = 'x'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** A unique positive integer, for keys sent as integers. */
export function uniqueInteger(): number {
  return 100_000 + randomBytes(3).readUIntBE(0, 3) * 100 + Math.floor(Math.random() * 100);
}

export async function readJson(response: Response): Promise<Json> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  return response.json();
}

/** The 422 message rule of decisions.md: the first reason, plus "(and N more errors)". */
export function expectedValidationMessage(errors: Record<string, string[]>): string {
  const reasons = Object.values(errors).flat();
  const more = reasons.length - 1;
  return more > 0 ? `${reasons[0]} (and ${more} more error${more === 1 ? '' : 's'})` : reasons[0]!;
}

/**
 * Asserts a 422 with exactly `{message, errors}`, every reason a non-empty string, the message
 * built from the reasons, and a reason for each of `fields`. Returns the body.
 */
export async function expectValidationError(response: Response, fields: string[]): Promise<Json> {
  const body = await readJson(response);
  expect(response.status, JSON.stringify(body)).toBe(422);
  expect(Object.keys(body).sort()).toEqual(['errors', 'message']);
  expect(typeof body.message).toBe('string');
  for (const reasons of Object.values(body.errors)) {
    expect(Array.isArray(reasons) && reasons.length > 0).toBe(true);
    for (const reason of reasons as unknown[]) expect(reason).toEqual(expect.stringMatching(/\S/));
  }
  expect(body.message).toBe(expectedValidationMessage(body.errors));
  for (const field of fields) expect(body.errors, `errors.${field}`).toHaveProperty([field]);
  return body;
}

/** Asserts the one 401 body of decisions.md. */
export async function expectUnauthenticated(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(await readJson(response)).toEqual({ message: 'Unauthenticated.' });
}

/** Asserts a JSON error other than 401/422: that status, a message and this code. */
export async function expectError(response: Response, status: number, code: string): Promise<Json> {
  const body = await readJson(response);
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body).toEqual({ message: expect.stringMatching(/\S/), code });
  return body;
}

export const expectNotFound = (response: Response) => expectError(response, 404, 'not_found');

/** Sends, asserts the status, returns the JSON body. */
export async function expectStatus(response: Response, status: number): Promise<Json> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return text === '' ? undefined : JSON.parse(text);
}

/** Everything the server logged, as one text, for "never appears in the logs" checks. */
export const logText = (server: TestServer) => JSON.stringify(server.logs);

export async function issueApiToken(server: TestServer, client: string, duration: number): Promise<string> {
  const token = await expectStatus(
    await server.request('/api/auth/token/api/', { body: { client, duration }, token: false }),
    200,
  );
  expect(typeof token).toBe('string');
  return token as string;
}

/** The id of the newest API token issued to `client`, as the console lists it. */
export async function apiTokenId(server: TestServer, client: string): Promise<number> {
  const info = (await server.vss.tokens.listApiTokens()).find((token) => token.client === client);
  if (!info) throw new Error(`no API token for ${client}`);
  return info.id;
}

export async function createTreeElement(server: TestServer, fields: Record<string, unknown> = {}): Promise<Json> {
  return expectStatus(
    await server.request('/api/admin/v1/tree-elements', { body: { name: 'Group', ...fields } }),
    201,
  );
}

export async function createFolder(
  server: TestServer,
  treeElementId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  return expectStatus(
    await server.request(`/api/admin/v1/tree-elements/${treeElementId}/folders`, { body: { name: 'Folder', ...fields } }),
    201,
  );
}

export const postCameraV2 = (server: TestServer, body: unknown, token?: string | false) =>
  server.request('/api/v2/billing/cameras', { body, ...(token === undefined ? {} : { token }) });

/** A valid v2 camera body in the tree element `groupId`, with a fresh mac. */
export const cameraBody = (groupId: number, fields: Record<string, unknown> = {}) => ({
  name: 'Camera',
  mac: randomMac(),
  group_id: groupId,
  ...fields,
});

/** Creates a camera through v2 and returns the 201 body. */
export async function createCameraV2(server: TestServer, body: Record<string, unknown>): Promise<Json> {
  return expectStatus(await postCameraV2(server, body), 201);
}

export async function getCamera(server: TestServer, id: number): Promise<Json> {
  return expectStatus(await server.request(`/api/admin/v1/cameras/${id}`), 200);
}

/** How many cameras exist, as the list endpoint counts them. */
export async function cameraCount(server: TestServer): Promise<number> {
  const list = await expectStatus(await server.request('/api/admin/v1/cameras?per_page=1'), 200);
  return list.meta.total as number;
}

export const postStream = (server: TestServer, cameraId: number | string, body: unknown) =>
  server.request(`/api/admin/v1/cameras/${cameraId}/streams`, { body });

export const postDeviceAddress = (server: TestServer, body: unknown, token?: string | false) =>
  server.request('/api/v1/billing/streams', { body, ...(token === undefined ? {} : { token }) });
