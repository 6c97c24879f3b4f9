import { z } from 'zod';
import { TokenDuration } from './auth';
import { Uid } from './common';

/** 9999-12-31T23:59:59Z: any later instant is not a valid JavaScript date. */
export const MAX_UNIX_SECONDS = 253_402_300_799;
/** The longest archive range one request may ask for: a day. */
export const MAX_RANGE_SECONDS = 86_400;
export const MEDIA_URLS_MAX_UIDS = 100;

/**
 * A whole number sent in a query string: digits only, so that `from=`, `1e3` or `0x10` are refused
 * instead of being read as 0, 1000 or 16.
 */
const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max));

/** Every media route takes its access token (or an API token) in `?token=`, or in Authorization. */
export const MediaQuery = z.object({ token: z.string().optional() });

/** A stretch of the archive: `from` in Unix seconds, `duration` in seconds. */
export const ArchiveRangeQuery = MediaQuery.extend({
  from: queryInteger(0, MAX_UNIX_SECONDS),
  duration: queryInteger(1, MAX_RANGE_SECONDS),
});
export type ArchiveRangeQuery = z.output<typeof ArchiveRangeQuery>;

export const PLAYER_MODES = ['live', 'archive'] as const;

/** The player plays the live stream, or (with `from` and `duration`) a stretch of the archive. */
export const PlayerQuery = MediaQuery.extend({
  mode: z.enum(PLAYER_MODES).default('live'),
  from: queryInteger(0, MAX_UNIX_SECONDS).optional(),
  duration: queryInteger(1, MAX_RANGE_SECONDS).optional(),
}).superRefine((query, ctx) => {
  if (query.mode !== 'archive') return;
  for (const field of ['from', 'duration'] as const) {
    if (query[field] === undefined) {
      ctx.addIssue({ code: 'custom', path: [field], message: `The ${field} field is required in archive mode.` });
    }
  }
});
export type PlayerQuery = z.output<typeof PlayerQuery>;

/** Stream.GetMediaUrls: playback URLs of streams, each with a fresh access token. */
export const StreamGetMediaUrlsParams = z.object({
  uids: z.array(Uid).min(1).max(MEDIA_URLS_MAX_UIDS),
  /** The viewer the access tokens are issued to. */
  user: z.string().min(1).max(255).default('viewer'),
  /** Lifetime of the access tokens in seconds; 0 is unlimited. */
  ttl: TokenDuration.default(3600),
});
export type StreamGetMediaUrlsParams = z.input<typeof StreamGetMediaUrlsParams>;

/** In `archive` and `export`, `{from}` (Unix seconds) and `{duration}` (seconds) are to be filled in. */
export const MediaUrls = z.object({
  live: z.string(),
  archive: z.string(),
  export: z.string(),
  preview: z.string(),
  player: z.string(),
});
export type MediaUrls = z.infer<typeof MediaUrls>;

export const StreamGetMediaUrlsResult = z.record(Uid, MediaUrls);
export type StreamGetMediaUrlsResult = z.infer<typeof StreamGetMediaUrlsResult>;

/** A stretch of continuous recording, in Unix seconds (`from` rounded down, `to` rounded up). */
export const ArchiveRange = z.object({ from: z.int().min(0), to: z.int().min(0) });
export type ArchiveRange = z.infer<typeof ArchiveRange>;

export const ArchiveRanges = z.object({ data: z.array(ArchiveRange) });
export type ArchiveRanges = z.infer<typeof ArchiveRanges>;

export const MEDIA_FORBIDDEN_MESSAGE = 'A valid access token for this stream is required.';
