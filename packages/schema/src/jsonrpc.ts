import { z } from 'zod';
import { Uid } from './common';

export const JSONRPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

export const JSONRPC_BATCH_LIMIT = 100;

export const JsonRpcId = z.union([z.string(), z.number(), z.null()]);
export type JsonRpcId = z.infer<typeof JsonRpcId>;

/** The envelope; params may also be a plain string, the specification's one-uid form. */
export const JsonRpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown()), z.string()]).optional(),
  id: JsonRpcId.optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

export const JsonRpcErrorObject = z.object({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObject>;

export const JsonRpcSuccess = z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.unknown() });
export const JsonRpcFailure = z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, error: JsonRpcErrorObject });
export const JsonRpcResponse = z.union([JsonRpcSuccess, JsonRpcFailure]);
export type JsonRpcResponse = z.infer<typeof JsonRpcResponse>;
export const JsonRpcBody = z.union([JsonRpcResponse, z.array(JsonRpcResponse)]);

/** Stream.Restart: {camera uuid: [uid, ...]}, [uid, ...], or one uid as a plain string. */
export const StreamRestartParams = z.union([
  Uid,
  z.array(Uid).min(1),
  z.record(z.string().min(1), z.array(Uid).min(1)),
]);
export type StreamRestartParams = z.infer<typeof StreamRestartParams>;

export const STREAM_RESTART_RESULT = 'OK';
