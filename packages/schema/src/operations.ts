import { z } from 'zod';
import { AnalyticsCase, AnalyticsCaseCreate, AnalyticsCaseRestart } from './analytics';
import { AccessTokenRequest, ApiTokenRequest, TokenResponse } from './auth';
import { Camera, CameraCreated, CameraCreateV1, CameraCreateV2, CameraList } from './cameras';
import { PaginationQuery } from './common';
import { ErrorBody, ValidationErrorBody } from './errors';
import { EventsQuery, Webhook, WebhookCreate, WebhookCreated } from './events';
import { Intercom, IntercomCreate, IntercomRestart } from './intercoms';
import { JsonRpcBody, JsonRpcRequest } from './jsonrpc';
import { ArchiveRangeQuery, ArchiveRanges, MediaQuery, PlayerQuery } from './media';
import { DeviceAddress, Stream, StreamCreate } from './streams';
import { Folder, FolderCreate, TreeElement, TreeElementCreate } from './tree';

export const Health = z.object({ status: z.literal('ok') });

/**
 * How an operation is authorised: an API token, the loopback console, nothing, or (media routes)
 * an access token for the stream in the path or an API token, refused with 403 rather than 401.
 */
export type OperationAuth = 'api-token' | 'loopback' | 'none' | 'access-token';

export interface Operation {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI-style path, parameters in braces. */
  path: string;
  summary: string;
  tag: string;
  auth: OperationAuth;
  pathParams?: Record<string, 'integer' | 'uid'>;
  query?: z.ZodObject;
  body?: z.ZodType;
  bodyRequired?: boolean;
  /** Status to response schema; null for a response without content. */
  responses: Record<number, z.ZodType | null>;
  /** The media type of a 200 response that is not JSON (playlists, video, images, pages). */
  produces?: string;
  deprecated?: boolean;
}

const unauthorized = { 401: ErrorBody };
const invalid = { 422: ValidationErrorBody };
const notFound = { 404: ErrorBody };
/** A media route's refusals: 403 for any token that does not open the stream, 404, and a bad query. */
const media = { 403: ErrorBody, ...notFound, ...invalid };
const mediaPath = (rest: string) => `/api/v1/media/{uid}/${rest}`;

/**
 * Every HTTP operation of the server, once. The server mounts its handlers by these names and
 * paths, and the OpenAPI document is generated from this table, so neither can miss a route.
 */
export const operations = {
  issueApiToken: {
    method: 'post', path: '/api/auth/token/api/', tag: 'auth', auth: 'loopback',
    summary: 'Issue an API token (only from the server console: loopback peer, no forwarding header).',
    body: ApiTokenRequest, bodyRequired: true,
    responses: { 200: TokenResponse, 403: ErrorBody, ...invalid },
  },
  issueAccessToken: {
    method: 'post', path: '/api/auth/token/access/', tag: 'auth', auth: 'api-token',
    summary: 'Issue an access token for playing one stream as one user.',
    body: AccessTokenRequest, bodyRequired: true,
    responses: { 200: TokenResponse, ...unauthorized, ...invalid },
  },
  jsonRpc: {
    method: 'post', path: '/api/', tag: 'streams', auth: 'api-token',
    summary: 'JSON-RPC 2.0 endpoint (Stream.Restart); single calls, batches and notifications.',
    body: z.union([JsonRpcRequest, z.array(JsonRpcRequest)]), bodyRequired: true,
    responses: { 200: JsonRpcBody, 204: null, 400: JsonRpcBody, ...unauthorized, 500: JsonRpcBody },
  },
  restartAnalyticsCase: {
    method: 'post', path: '/api/admin/v1/cameras/{camera}/analytic-cases/{analytic_case_camera}/restart/',
    tag: 'analytics', auth: 'api-token',
    summary: 'Restart a STOPPED analytics case of a camera; it becomes PENDING.',
    pathParams: { camera: 'integer', analytic_case_camera: 'integer' },
    body: AnalyticsCaseRestart,
    responses: { 200: AnalyticsCase, ...unauthorized, ...notFound, ...invalid },
  },
  restartIntercom: {
    method: 'post', path: '/api/admin/v1/intercoms/{intercom}/restart-intercom', tag: 'intercoms', auth: 'api-token',
    summary: 'Ask an intercom to reboot through its vendor driver.',
    pathParams: { intercom: 'integer' },
    body: IntercomRestart,
    responses: { 204: null, ...unauthorized, ...notFound, ...invalid, 502: ErrorBody, 504: ErrorBody },
  },
  createCameraV2: {
    method: 'post', path: '/api/v2/billing/cameras', tag: 'cameras', auth: 'api-token',
    summary: 'Create a camera with per-stream-type archive settings.',
    body: CameraCreateV2, bodyRequired: true,
    responses: { 201: CameraCreated, ...unauthorized, ...invalid },
  },
  createCameraV1: {
    method: 'post', path: '/api/v1/billing/cameras', tag: 'cameras', auth: 'api-token', deprecated: true,
    summary: 'Create a camera (v1, one archive setting for both stream types). Deprecated; gone six months after the v2 release.',
    body: CameraCreateV1, bodyRequired: true,
    responses: { 201: CameraCreated, ...unauthorized, 410: ErrorBody, ...invalid },
  },
  deviceAddress: {
    method: 'post', path: '/api/v1/billing/streams', tag: 'streams', auth: 'api-token',
    summary: "A device got an address (DHCP callback): create or update the camera's high and low streams.",
    body: DeviceAddress, bodyRequired: true,
    responses: { 204: null, ...unauthorized, ...invalid },
  },
  listCameras: {
    method: 'get', path: '/api/admin/v1/cameras', tag: 'cameras', auth: 'api-token',
    summary: 'List cameras, a page at a time.', query: PaginationQuery,
    responses: { 200: CameraList, ...unauthorized, ...invalid },
  },
  getCamera: {
    method: 'get', path: '/api/admin/v1/cameras/{camera}', tag: 'cameras', auth: 'api-token',
    summary: 'A camera with its uuid, stored archive settings and streams.',
    pathParams: { camera: 'integer' },
    responses: { 200: Camera, ...unauthorized, ...notFound },
  },
  createStream: {
    method: 'post', path: '/api/admin/v1/cameras/{camera}/streams', tag: 'streams', auth: 'api-token',
    summary: "Create a camera's stream; the camera's stored archive settings for its type apply.",
    pathParams: { camera: 'integer' },
    body: StreamCreate, bodyRequired: true,
    responses: { 201: Stream, ...unauthorized, ...notFound, ...invalid },
  },
  getStream: {
    method: 'get', path: '/api/admin/v1/streams/{uid}', tag: 'streams', auth: 'api-token',
    summary: 'A stream with its status and reconnection data.',
    pathParams: { uid: 'uid' },
    responses: { 200: Stream, ...unauthorized, ...notFound },
  },
  createTreeElement: {
    method: 'post', path: '/api/admin/v1/tree-elements', tag: 'tree', auth: 'api-token',
    summary: 'Create a tree element.',
    body: TreeElementCreate, bodyRequired: true,
    responses: { 201: TreeElement, ...unauthorized, ...invalid },
  },
  listTreeElements: {
    method: 'get', path: '/api/admin/v1/tree-elements', tag: 'tree', auth: 'api-token',
    summary: 'List tree elements.',
    responses: { 200: z.array(TreeElement), ...unauthorized },
  },
  getTreeElement: {
    method: 'get', path: '/api/admin/v1/tree-elements/{id}', tag: 'tree', auth: 'api-token',
    summary: 'A tree element.', pathParams: { id: 'integer' },
    responses: { 200: TreeElement, ...unauthorized, ...notFound },
  },
  createFolder: {
    method: 'post', path: '/api/admin/v1/tree-elements/{id}/folders', tag: 'tree', auth: 'api-token',
    summary: 'Create a private folder inside a tree element.', pathParams: { id: 'integer' },
    body: FolderCreate, bodyRequired: true,
    responses: { 201: Folder, ...unauthorized, ...notFound, ...invalid },
  },
  listFolders: {
    method: 'get', path: '/api/admin/v1/tree-elements/{id}/folders', tag: 'tree', auth: 'api-token',
    summary: 'List the private folders of a tree element.', pathParams: { id: 'integer' },
    responses: { 200: z.array(Folder), ...unauthorized, ...notFound },
  },
  createAnalyticsCase: {
    method: 'post', path: '/api/admin/v1/cameras/{camera}/analytic-cases', tag: 'analytics', auth: 'api-token',
    summary: 'Attach an analytics case to a camera.', pathParams: { camera: 'integer' },
    body: AnalyticsCaseCreate, bodyRequired: true,
    responses: { 201: AnalyticsCase, ...unauthorized, ...notFound, ...invalid },
  },
  getAnalyticsCase: {
    method: 'get', path: '/api/admin/v1/cameras/{camera}/analytic-cases/{analytic_case_camera}', tag: 'analytics',
    auth: 'api-token', summary: 'An analytics case of a camera.',
    pathParams: { camera: 'integer', analytic_case_camera: 'integer' },
    responses: { 200: AnalyticsCase, ...unauthorized, ...notFound },
  },
  stopAnalyticsCase: {
    method: 'post', path: '/api/admin/v1/cameras/{camera}/analytic-cases/{analytic_case_camera}/stop/', tag: 'analytics',
    auth: 'api-token', summary: 'Stop an analytics case; it becomes STOPPED.',
    pathParams: { camera: 'integer', analytic_case_camera: 'integer' },
    body: AnalyticsCaseRestart,
    responses: { 200: AnalyticsCase, ...unauthorized, ...notFound, ...invalid },
  },
  createIntercom: {
    method: 'post', path: '/api/admin/v1/intercoms', tag: 'intercoms', auth: 'api-token',
    summary: 'Register an intercom; its password is stored encrypted and never returned.',
    body: IntercomCreate, bodyRequired: true,
    responses: { 201: Intercom, ...unauthorized, ...invalid },
  },
  listIntercoms: {
    method: 'get', path: '/api/admin/v1/intercoms', tag: 'intercoms', auth: 'api-token',
    summary: 'List intercoms.',
    responses: { 200: z.array(Intercom), ...unauthorized },
  },
  getIntercom: {
    method: 'get', path: '/api/admin/v1/intercoms/{intercom}', tag: 'intercoms', auth: 'api-token',
    summary: 'An intercom.', pathParams: { intercom: 'integer' },
    responses: { 200: Intercom, ...unauthorized, ...notFound },
  },
  streamEvents: {
    method: 'get', path: '/api/admin/v1/events', tag: 'events', auth: 'api-token',
    summary:
      'Server-Sent Events: every event after `Last-Event-ID` (or `?after=`), then live ones as they happen; ' +
      'a `: keepalive` comment every 15 s.',
    query: EventsQuery, produces: 'text/event-stream',
    responses: { 200: z.string(), ...unauthorized, ...invalid },
  },
  createWebhook: {
    method: 'post', path: '/api/admin/v1/webhooks', tag: 'events', auth: 'api-token',
    summary: 'Register a webhook; events are POSTed to it signed with its secret, shown only in this answer.',
    body: WebhookCreate, bodyRequired: true,
    responses: { 201: WebhookCreated, ...unauthorized, ...invalid },
  },
  listWebhooks: {
    method: 'get', path: '/api/admin/v1/webhooks', tag: 'events', auth: 'api-token',
    summary: 'List webhooks (without their secrets).',
    responses: { 200: z.array(Webhook), ...unauthorized },
  },
  getWebhook: {
    method: 'get', path: '/api/admin/v1/webhooks/{webhook}', tag: 'events', auth: 'api-token',
    summary: 'A webhook (without its secret).', pathParams: { webhook: 'integer' },
    responses: { 200: Webhook, ...unauthorized, ...notFound },
  },
  deleteWebhook: {
    method: 'delete', path: '/api/admin/v1/webhooks/{webhook}', tag: 'events', auth: 'api-token',
    summary: 'Delete a webhook and its pending deliveries.', pathParams: { webhook: 'integer' },
    responses: { 204: null, ...unauthorized, ...notFound },
  },
  getArchiveRanges: {
    method: 'get', path: '/api/admin/v1/streams/{uid}/archive/ranges', tag: 'media', auth: 'api-token',
    summary: "The stretches of a stream's archive with continuous recording, oldest first.",
    pathParams: { uid: 'uid' },
    responses: { 200: ArchiveRanges, ...unauthorized, ...notFound },
  },
  mediaLive: {
    method: 'get', path: mediaPath('live.m3u8'), tag: 'media', auth: 'access-token',
    summary: 'Live HLS playlist of the newest segments; segment URIs are relative and carry the token.',
    pathParams: { uid: 'uid' }, query: MediaQuery, produces: 'application/vnd.apple.mpegurl',
    responses: { 200: z.string(), ...media },
  },
  mediaArchive: {
    method: 'get', path: mediaPath('archive.m3u8'), tag: 'media', auth: 'access-token',
    summary: 'HLS VOD playlist of the recorded segments overlapping [from, from + duration).',
    pathParams: { uid: 'uid' }, query: ArchiveRangeQuery, produces: 'application/vnd.apple.mpegurl',
    responses: { 200: z.string(), ...media },
  },
  mediaSegment: {
    method: 'get', path: mediaPath('segments/{segment}.ts'), tag: 'media', auth: 'access-token',
    summary: 'One MPEG-TS segment of the stream, as listed by its playlists.',
    pathParams: { uid: 'uid', segment: 'integer' }, query: MediaQuery, produces: 'video/mp2t',
    responses: { 200: z.string(), ...media },
  },
  mediaExport: {
    method: 'get', path: mediaPath('export.mp4'), tag: 'media', auth: 'access-token',
    summary: 'The recording of [from, from + duration) as a fragmented MP4 download, from keyframe to keyframe.',
    pathParams: { uid: 'uid' }, query: ArchiveRangeQuery, produces: 'video/mp4',
    responses: { 200: z.string(), ...media },
  },
  mediaPreview: {
    method: 'get', path: mediaPath('preview.jpg'), tag: 'media', auth: 'access-token',
    summary: 'A JPEG of the newest recorded keyframe.',
    pathParams: { uid: 'uid' }, query: MediaQuery, produces: 'image/jpeg',
    responses: { 200: z.string(), ...media },
  },
  mediaPlayer: {
    method: 'get', path: mediaPath('player'), tag: 'media', auth: 'access-token',
    summary: 'An embeddable HTML player of the live stream or of an archive range.',
    pathParams: { uid: 'uid' }, query: PlayerQuery, produces: 'text/html',
    responses: { 200: z.string(), ...media },
  },
  mediaPlayerScript: {
    // Not under /api/v1/media/: a static segment there would hide a stream whose uid is "assets".
    method: 'get', path: '/api/v1/media-assets/hls.min.js', tag: 'media', auth: 'none',
    summary: 'hls.js, the script the player page loads.', produces: 'text/javascript',
    responses: { 200: z.string() },
  },
  health: {
    method: 'get', path: '/healthz', tag: 'system', auth: 'none',
    summary: 'Liveness: 200 when the database answers, 503 otherwise.',
    responses: { 200: Health, 503: ErrorBody },
  },
  openApi: {
    method: 'get', path: '/api/openapi.json', tag: 'system', auth: 'none',
    summary: 'This OpenAPI 3.1 document.',
    responses: { 200: z.record(z.string(), z.unknown()) },
  },
  docs: {
    method: 'get', path: '/api/docs', tag: 'system', auth: 'none',
    summary: 'This API reference as a self-contained HTML page.', produces: 'text/html',
    responses: { 200: z.string() },
  },
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof operations;
