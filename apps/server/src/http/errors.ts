import { STATUS_CODES } from 'node:http';
import { isVssError, normalizeError, type VssError } from '@vss/core';
import { type ErrorBody, UNAUTHENTICATED_MESSAGE, type ValidationErrorBody } from '@vss/schema';
import { type H3Event, isError } from 'h3';
import type { Logger } from './log';
import { renderHtmlError, wantsJson } from './negotiate';
import { errorCodeForStatus, httpStatus } from './status';

export interface ErrorResponse {
  status: number;
  /** A string only for a 500, which is plain text whatever the client asked for. */
  body: ErrorBody | ValidationErrorBody | string;
  headers: Record<string, string>;
}

function fromVssError(error: VssError): ErrorResponse {
  const headers = { ...error.details.headers };
  const status = httpStatus(error.code);
  switch (error.code) {
    case 'validation_failed':
      return { status, body: { message: error.message, errors: error.details.errors ?? {} }, headers };
    case 'unauthenticated':
      return { status, body: { message: UNAUTHENTICATED_MESSAGE }, headers };
    default:
      return { status, body: { message: error.message, code: error.code }, headers };
  }
}

/**
 * The response for anything a handler threw. Only a VssError or h3's own 4xx (its router's 404 and
 * 405) says something safe to show; everything else is a 500 whose details go to the log alone.
 */
export function toErrorResponse(error: unknown, logger: Logger): ErrorResponse {
  // h3 passes onError an H3Error wrapping what the handler threw, with the thrown error as its cause.
  const thrown = normalizeError(isError(error) && error.cause instanceof Error ? error.cause : error);
  if (isVssError(thrown) && thrown.code !== 'internal') return fromVssError(thrown);
  if (isError(thrown) && !thrown.unhandled) {
    const code = errorCodeForStatus(thrown.statusCode);
    // h3's messages can quote the request path; the status text says as much without echoing input.
    if (code && code !== 'internal') {
      return { status: thrown.statusCode, body: { message: `${STATUS_CODES[thrown.statusCode]}.`, code }, headers: {} };
    }
  }
  logger.error('Request failed.', { error: thrown });
  return { status: 500, body: 'Internal Server Error', headers: {} };
}

/**
 * Writes the error for this request: JSON when the client sent or prefers JSON, otherwise an HTML
 * page with the same status; a 500 is plain text either way.
 */
export function sendError(event: H3Event, error: unknown, logger: Logger): void {
  const response = toErrorResponse(error, logger);
  const res = event.node.res;
  if (res.headersSent) {
    // A response that broke off mid-stream can no longer change its status; ending it cleanly would
    // pass the truncated body off as complete.
    if (!res.writableEnded) res.destroy();
    return;
  }
  const title = STATUS_CODES[response.status] ?? 'Error';
  let text: string;
  let contentType: string;
  if (typeof response.body === 'string') {
    text = response.body;
    contentType = 'text/plain; charset=utf-8';
  } else if (wantsJson(event)) {
    text = JSON.stringify(response.body);
    contentType = 'application/json';
  } else {
    text = renderHtmlError(response.status, title, response.body.message);
    contentType = 'text/html; charset=utf-8';
  }
  res.statusCode = response.status;
  // h3 has already put its own reason phrase on the response, and it may quote the request path.
  res.statusMessage = title;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('content-type', contentType);
  res.end(text);
}
