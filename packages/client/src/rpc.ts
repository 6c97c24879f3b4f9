import type { JsonRpcRequest, JsonRpcResponse } from '@vss/schema';
import { contractViolation, isRecord, JsonRpcError, type ResponseValidationError } from './errors';
import type { Transport } from './transport';

/** By-position or by-name parameters, or the plain string some methods (Stream.Restart) accept. */
export type JsonRpcParams = NonNullable<JsonRpcRequest['params']>;

export interface JsonRpcCall {
  method: string;
  params?: JsonRpcParams;
}

/** One call's outcome in a batch, in the order the calls were given. */
export type JsonRpcBatchResult<T = unknown> = { ok: true; result: T } | { ok: false; error: JsonRpcError };

// JSON-RPC puts its error objects on 400 (the caller's fault) and 500 (the server's).
const RPC_ANSWERS = [400, 500] as const;

function rpcError(response: JsonRpcResponse & { error: unknown }, status: number): JsonRpcError {
  const { error } = response as { error: { code: number; message: string; data?: unknown } };
  return new JsonRpcError({
    message: error.message,
    rpcCode: error.code,
    data: error.data,
    status,
    body: response,
    operation: 'jsonRpc',
  });
}

function protocolError(problem: string, status: number, body: unknown): ResponseValidationError {
  return contractViolation({ status, body, operation: 'jsonRpc', what: 'The JSON-RPC answer' }, problem);
}

/** A single response without its `error` member is a success; anything else is the error object. */
function outcome(response: JsonRpcResponse, status: number): JsonRpcBatchResult {
  return 'error' in response && isRecord(response.error)
    ? { ok: false, error: rpcError(response, status) }
    : { ok: true, result: (response as { result?: unknown }).result };
}

export function createRpc(transport: Transport) {
  let nextId = 1;

  function send(body: JsonRpcRequest | JsonRpcRequest[]) {
    return transport.call('jsonRpc', { body, answers: RPC_ANSWERS });
  }

  const envelope = (method: string, params: JsonRpcParams | undefined, id?: number): JsonRpcRequest => ({
    jsonrpc: '2.0',
    method,
    ...(params === undefined ? {} : { params }),
    ...(id === undefined ? {} : { id }),
  });

  return {
    /** Calls a method and resolves with its result; a JSON-RPC error object is thrown as JsonRpcError. */
    async call<T = unknown>(method: string, params?: JsonRpcParams): Promise<T> {
      const id = nextId++;
      const { status, data } = await send(envelope(method, params, id));
      if (!isRecord(data)) throw protocolError('is not one JSON-RPC response object.', status, data);
      const response = data as JsonRpcResponse;
      // An error about the envelope itself may come back with id null; only a success must echo ours.
      if (!('error' in response) && response.id !== id) {
        throw protocolError(`has id ${String(response.id)}, not ${id}.`, status, data);
      }
      const result = outcome(response, status);
      if (!result.ok) throw result.error;
      return result.result as T;
    },

    /** Sends a notification: no id, so the server runs it and answers nothing. */
    async notify(method: string, params?: JsonRpcParams): Promise<void> {
      const { status, data } = await send(envelope(method, params));
      // Only an envelope the server could not even read earns an answer to a notification.
      if (isRecord(data)) {
        const result = outcome(data as JsonRpcResponse, status);
        if (!result.ok) throw result.error;
      }
    },

    /**
     * Sends several calls in one request. Resolves with one outcome per call, in the given order
     * (the server may answer in any order); throws only when the batch as a whole was refused.
     */
    async batch<T = unknown>(calls: readonly JsonRpcCall[]): Promise<JsonRpcBatchResult<T>[]> {
      // An empty batch is an invalid request by the specification; there is nothing to ask.
      if (calls.length === 0) return [];
      const ids = calls.map(() => nextId++);
      const { status, data } = await send(calls.map(({ method, params }, index) => envelope(method, params, ids[index])));
      if (isRecord(data)) {
        const refused = outcome(data as JsonRpcResponse, status);
        throw refused.ok ? protocolError('is not an array of JSON-RPC responses.', status, data) : refused.error;
      }
      if (!Array.isArray(data)) throw protocolError('is not an array of JSON-RPC responses.', status, data);
      const byId = new Map<unknown, JsonRpcResponse>((data as JsonRpcResponse[]).map((response) => [response.id, response]));
      return ids.map((id) => {
        const response = byId.get(id);
        if (!response) throw protocolError(`has no response for call id ${id}.`, status, data);
        return outcome(response, status) as JsonRpcBatchResult<T>;
      });
    },
  };
}

export type RpcNamespace = ReturnType<typeof createRpc>;
