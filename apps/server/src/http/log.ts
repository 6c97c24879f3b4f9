import type { H3Event } from 'h3';
import { peerAddress } from './client';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;

/** Structurally the Logger of @vss/core, so the server's logger is the one core writes to. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

// `[?&;]` or start/space before the name, so `access_token=` or `mytoken=` are left alone.
const TOKEN_PARAMETER = /(^|[?&;\s])(token=)[^&#\s"']+/gi;
// Greedy up to the last `@` of the authority, so a password holding an unescaped `@` is masked whole.
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/?#]*:)[^\s/?#]*(@)/gi;

/** Masks what must never reach a log: token query values and passwords inside URLs. */
export function redact(text: string): string {
  return text.replace(TOKEN_PARAMETER, '$1$2[REDACTED]').replace(URL_PASSWORD, '$1***$2');
}

// Whatever text they hold, fields so named are secrets by definition.
const SECRET_KEY = /^(?:token|password|authorization)$/i;

/** JSON.stringify replacer: `this[key]` is the value before toJSON, so an H3Error is still an Error. */
function serialise(this: unknown, key: string, value: unknown): unknown {
  const raw = key === '' ? value : (this as Record<string, unknown>)[key];
  if (SECRET_KEY.test(key) && typeof value === 'string') return '[REDACTED]';
  if (raw instanceof Error) return { name: raw.name, message: redact(raw.message), stack: raw.stack && redact(raw.stack) };
  if (typeof value === 'string') return redact(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Receives one JSON text per call, newline included; stdout by default. */
  write?: (line: string) => void;
}

export function createLogger({ level, write = (line) => process.stdout.write(line) }: LoggerOptions): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const log = (entryLevel: LogLevel) => (msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(entryLevel) < threshold) return;
    const entry = { time: new Date().toISOString(), level: entryLevel, msg };
    let line: string;
    try {
      // Spread twice: the keys stay first in the line, and a field named `level` cannot overwrite them.
      line = JSON.stringify({ ...entry, ...fields, ...entry }, serialise);
    } catch {
      // A circular field must not turn logging into a crash; the message alone still says what happened.
      line = JSON.stringify({ ...entry, log_error: 'fields not serialisable' }, serialise);
    }
    write(`${line}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** The fields of one access-log line; the peer address, not a forwarding header any client can forge. */
export function requestLogFields(event: H3Event, status: number, durationMs: number): LogFields {
  return {
    method: event.method,
    path: redact(event.path),
    status,
    duration_ms: Math.round(durationMs),
    ip: peerAddress(event),
  };
}
