import { z } from 'zod';
import { AnalyticsCase, AnalyticsCaseCreate, AnalyticsCaseRestart } from './analytics';
import { AccessTokenRequest, ApiTokenRequest, TokenResponse } from './auth';
import { Camera, CameraCreated, CameraCreateV1, CameraCreateV2, CameraList } from './cameras';
import { PaginationQuery } from './common';
import { ErrorBody, ValidationErrorBody } from './errors';
import { Intercom, IntercomCreate, IntercomRestart } from './intercoms';
import { JsonRpcBody, JsonRpcRequest } from './jsonrpc';
import { DeviceAddress, Stream, StreamCreate } from './streams';
import { Folder, FolderCreate, TreeElement, TreeElementCreate } from './tree';

export const Health = z.object({ status: z.literal('ok') });

/** How an operation is authorised: an API token, the loopback console, or nothing. */
export type OperationAuth = 'api-token' | 'loopback' | 'none';

export interface Operation {
  method: 'get' | 'post';
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
  deprecated?: boolean;
}

const unauthorized = { 401: ErrorBody };
const invalid = { 422: ValidationErrorBody };
const notFound = { 404: ErrorBody };

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
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof operations;
