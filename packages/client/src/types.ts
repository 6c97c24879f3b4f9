import type * as schema from '@vss/schema';

// Own aliases rather than a re-export: the schema names are values (zod schemas) as well as types,
// and a re-export would let the bundled declarations promise values the build does not ship.
export type AccessTokenRequest = schema.AccessTokenRequest;
export type AnalyticsCase = schema.AnalyticsCase;
export type AnalyticsCaseCreate = schema.AnalyticsCaseCreate;
export type AnalyticsCaseStatus = schema.AnalyticsCaseStatus;
export type ApiTokenRequest = schema.ApiTokenRequest;
export type ArchiveRange = schema.ArchiveRange;
export type Camera = schema.Camera;
export type CameraCreated = schema.CameraCreated;
export type CameraCreateV1 = schema.CameraCreateV1;
export type CameraCreateV2 = schema.CameraCreateV2;
export type CameraList = schema.CameraList;
export type DeviceAddress = schema.DeviceAddress;
export type ErrorCode = schema.ErrorCode;
export type Folder = schema.Folder;
export type FolderCreate = schema.FolderCreate;
export type Intercom = schema.Intercom;
export type IntercomCreate = schema.IntercomCreate;
export type IntercomVendor = schema.IntercomVendor;
export type MediaUrls = schema.MediaUrls;
export type PaginationQuery = schema.PaginationQuery;
export type Reconnection = schema.Reconnection;
export type Stream = schema.Stream;
export type StreamCreate = schema.StreamCreate;
export type StreamGetMediaUrlsParams = schema.StreamGetMediaUrlsParams;
export type StreamGetMediaUrlsResult = schema.StreamGetMediaUrlsResult;
export type StreamRestartParams = schema.StreamRestartParams;
export type StreamStatus = schema.StreamStatus;
export type StreamType = schema.StreamType;
export type TreeElement = schema.TreeElement;
export type TreeElementCreate = schema.TreeElementCreate;
export type ValidationErrors = schema.ValidationErrors;
