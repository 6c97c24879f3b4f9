import { ERROR_CODES, JSONRPC_ERRORS } from '@vss/schema';
import { describe, expect, it } from 'vitest';
import { errorCodeForStatus, HTTP_STATUS, httpStatus, jsonRpcHttpStatus } from './status';

describe('httpStatus', () => {
  it('maps every code to its status', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    expect(httpStatus('validation_failed')).toBe(422);
    expect(httpStatus('database_unavailable')).toBe(503);
  });

  it('gives each status back its one code', () => {
    for (const code of ERROR_CODES) expect(errorCodeForStatus(httpStatus(code))).toBe(code);
    expect(errorCodeForStatus(418)).toBeUndefined();
  });
});

describe('jsonRpcHttpStatus', () => {
  const failure = (code: number) => ({ jsonrpc: '2.0' as const, id: 1, error: { code, message: 'x' } });

  it('is 200 for a result, 400 for the caller’s errors and 500 for the server’s', () => {
    expect(jsonRpcHttpStatus({ jsonrpc: '2.0', id: 1, result: 'OK' })).toBe(200);
    for (const code of [JSONRPC_ERRORS.parseError, JSONRPC_ERRORS.invalidRequest, JSONRPC_ERRORS.methodNotFound, JSONRPC_ERRORS.invalidParams]) {
      expect(jsonRpcHttpStatus(failure(code))).toBe(400);
    }
    expect(jsonRpcHttpStatus(failure(JSONRPC_ERRORS.internalError))).toBe(500);
    expect(jsonRpcHttpStatus(failure(-32001))).toBe(500);
  });
});
