import {
  JSONRPC_BATCH_LIMIT,
  JSONRPC_ERRORS,
  JsonRpcId,
  JsonRpcRequest,
  type JsonRpcResponse,
} from '@vss/schema';
import { VssError } from './errors';
import type { Logger } from './logger';

export type JsonRpcMethod = (params: unknown) => Promise<unknown>;

const failure = (id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

/** The id to echo when a request is refused: its own, when it is a valid id at all. */
function idOf(value: unknown): JsonRpcId {
  if (value === null || typeof value !== 'object' || !('id' in value)) return null;
  const parsed = JsonRpcId.safeParse((value as { id: unknown }).id);
  return parsed.success ? parsed.data : null;
}

/**
 * JSON-RPC 2.0 over one endpoint: parse errors, invalid requests, unknown methods, invalid params
 * and internal errors per the specification; batches (capped) and notifications (no answer).
 * Returns undefined when there is nothing to answer.
 */
export function createJsonRpcHandler(methods: Record<string, JsonRpcMethod>, logger: Logger) {
  async function call(value: unknown): Promise<JsonRpcResponse | undefined> {
    const parsed = JsonRpcRequest.safeParse(value);
    if (!parsed.success) return failure(idOf(value), JSONRPC_ERRORS.invalidRequest, 'Invalid Request');
    const request = parsed.data;
    const isNotification = !('id' in (value as object));
    const id = request.id ?? null;
    const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    let response: JsonRpcResponse;
    if (!method) {
      response = failure(id, JSONRPC_ERRORS.methodNotFound, 'Method not found');
    } else {
      try {
        // The params as sent: the envelope's parse drops a `__proto__` key, and a method must see every key it was given.
        const params = (value as { params?: unknown }).params;
        // A success must carry a result member; an undefined one would vanish from the JSON.
        response = { jsonrpc: '2.0', id, result: (await method(params)) ?? null };
      } catch (error) {
        response = toFailure(id, request.method, error);
      }
    }
    return isNotification ? undefined : response;
  }

  function toFailure(id: JsonRpcId, method: string, error: unknown): JsonRpcResponse {
    if (error instanceof VssError && (error.code === 'validation_failed' || error.code === 'not_found')) {
      return failure(id, JSONRPC_ERRORS.invalidParams, 'Invalid params', {
        message: error.message,
        ...(error.details.errors ? { errors: error.details.errors } : {}),
        ...(error.details.data && typeof error.details.data === 'object' ? error.details.data : {}),
      });
    }
    logger.error('json-rpc method failed', { method, error });
    return failure(id, JSONRPC_ERRORS.internalError, 'Internal error');
  }

  return async function handle(text: string): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return failure(null, JSONRPC_ERRORS.parseError, 'Parse error');
    }
    if (!Array.isArray(payload)) return call(payload);
    if (payload.length === 0) return failure(null, JSONRPC_ERRORS.invalidRequest, 'Invalid Request');
    if (payload.length > JSONRPC_BATCH_LIMIT) {
      return failure(null, JSONRPC_ERRORS.invalidRequest, `Invalid Request: a batch holds at most ${JSONRPC_BATCH_LIMIT} calls`);
    }
    // Calls of a batch run one after another so that their effects have a defined order.
    const responses: JsonRpcResponse[] = [];
    for (const value of payload) {
      const response = await call(value);
      if (response) responses.push(response);
    }
    return responses.length > 0 ? responses : undefined;
  };
}
