export { createClient, type ClientOptions, type VssClient } from './client';
export {
  ConnectionError,
  DeviceError,
  ForbiddenError,
  GoneError,
  isVssClientError,
  JsonRpcError,
  NotFoundError,
  ResponseValidationError,
  ServerError,
  UnauthorizedError,
  ValidationError,
  VssClientError,
  type AnyVssClientError,
  type VssClientErrorCode,
} from './errors';
export type { CameraCreatedV1 } from './namespaces/cameras';
export type { EventStreamOptions } from './namespaces/events';
export type { ArchiveWindow, MediaLinks, MediaOptions } from './namespaces/media';
export type { JsonRpcBatchResult, JsonRpcCall, JsonRpcParams } from './rpc';
export type { RetryOptions } from './transport';

// The contracts' types, so callers can annotate without depending on the (bundled) schema package.
export type * from './types';
