import { VssError } from '@vss/core';
import { validationErrorBody } from '@vss/schema';
import type { H3Event } from 'h3';
import { isJsonMediaType } from './negotiate';

function describeBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

// The client may still be sending: closing the connection after the 413 stops the upload, where
// keep-alive would make Node read and discard the rest of it before the next request.
const tooLarge = (limitBytes: number) =>
  new VssError('payload_too_large', `The request body is larger than ${describeBytes(limitBytes)}.`, {
    headers: { Connection: 'close' },
  });

/**
 * The request body as text (UTF-8, BOM dropped; '' when there is none), read from the socket with a
 * hard cap: an announced length over the limit is refused before a byte is read, and a streamed one
 * as soon as it passes the limit.
 */
export function readRawBody(event: H3Event, limitBytes: number): Promise<string> {
  const req = event.node.req;
  const announced = Number(req.headers['content-length']);
  if (announced > limitBytes) return Promise.reject(tooLarge(limitBytes));
  // A stream that has ended never emits 'end' again: waiting on it would hang the request.
  if (req.readableEnded) return Promise.reject(new Error('The request body was already read.'));

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(new TextDecoder().decode(Buffer.concat(chunks, received)));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Drops the keys through which a parsed object could reach a prototype once merged downstream. */
function withoutPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  if (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value) return undefined;
  return value;
}

/**
 * The request body parsed as JSON: undefined when there is none (422 when `required`), 415 when it
 * is not declared as JSON, 400 when it does not parse, 413 over the limit.
 */
export async function readJsonBody(
  event: H3Event,
  options: { limitBytes: number; required: boolean },
): Promise<unknown | undefined> {
  const text = await readRawBody(event, options.limitBytes);
  if (text === '') {
    if (!options.required) return undefined;
    const { message, errors } = validationErrorBody({ body: ['The request body is required.'] });
    throw new VssError('validation_failed', message, { errors });
  }
  if (!isJsonMediaType(event.node.req.headers['content-type'])) {
    throw new VssError('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json).');
  }
  try {
    return JSON.parse(text, withoutPrototypeKeys);
  } catch {
    throw new VssError('bad_request', 'The request body is not valid JSON.');
  }
}
