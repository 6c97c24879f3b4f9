import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type CameraProfile, DEFAULT_V2_RELEASE_DATE, type MediaOptions } from '@vss/core';
import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from './http/log';

export interface ServerConfig {
  host: string;
  /** 0 asks the system for any free port. */
  port: number;
  /** PostgreSQL; without it the embedded PGlite keeps its files in `dataDir`. */
  databaseUrl: string | undefined;
  /** Absolute. */
  dataDir: string;
  /** 32 bytes; without it `resolveEncryptionKey` keeps one in `dataDir`. */
  encryptionKey: Buffer | undefined;
  v2ReleaseDate: Date;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  logLevel: LogLevel;
  /** The operator's camera profiles, added to (or overriding) the built-in ones. */
  cameraProfiles: Record<string, CameraProfile> | undefined;
  /** Ingest and archive settings; undefined when VSS_MEDIA=off. The data directory is added by the server. */
  media: Omit<MediaOptions, 'dataDir'> | undefined;
  /** The address viewers reach the server at, for media URLs; defaults to the listening address. */
  publicUrl: string | undefined;
}

const KEY_BYTES = 32;

/** 64 hex digits or base64 (standard or URL-safe), decoding to exactly 32 bytes. */
function parseKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

const template = z
  .string()
  .refine((value) => value.includes('{ip}'), 'must contain {ip}')
  .refine((value) => URL.canParse(value.replaceAll('{ip}', '192.0.2.1')), 'must be a URL');

const CameraProfiles = z.record(
  z.string().min(1).max(64),
  z.strictObject({ high: template, low: template }),
);

const isDigits = (text: string) => /^\d+$/.test(text);

/** A whole number from the environment within [min, max]. */
const wholeNumber = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .default(String(fallback))
    .refine((text) => isDigits(text) && Number(text) >= min && Number(text) <= max, `must be a whole number from ${min} to ${max}`)
    .transform(Number);

// Messages never quote the input: DATABASE_URL and VSS_ENCRYPTION_KEY are secrets.
const Env = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z
    .string()
    .default('8080')
    .refine((text) => isDigits(text) && Number(text) <= 65535, 'must be an integer from 0 to 65535 (0: any free port)')
    .transform(Number),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((text) => !text || /^postgres(?:ql)?:\/\/./.test(text), 'must be a postgres:// or postgresql:// URL'),
  VSS_DATA_DIR: z.string().default('./data'),
  VSS_ENCRYPTION_KEY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (!text) return undefined;
      const key = parseKey(text);
      if (!key) ctx.addIssue({ code: 'custom', message: 'must be 32 bytes: 64 hex digits or base64' });
      return key;
    }),
  VSS_V2_RELEASE_DATE: z
    .iso.date('must be a date such as 2026-11-21')
    .transform((text) => new Date(`${text}T00:00:00Z`))
    .optional(),
  VSS_BODY_LIMIT: wholeNumber(1_048_576, 1),
  VSS_MEDIA: z.enum(['on', 'off'], 'must be on or off').default('on'),
  VSS_SEGMENT_SECONDS: wholeNumber(2, 1, 10),
  VSS_RECONNECT_LIMIT: wholeNumber(500, 1),
  VSS_MIN_FREE_BYTES: wholeNumber(1024 ** 3, 0),
  VSS_RETENTION_INTERVAL_SECONDS: wholeNumber(60, 1),
  VSS_FFMPEG_PATH: z.string().optional(),
  VSS_FFPROBE_PATH: z.string().optional(),
  VSS_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((text) => text.replace(/\/+$/, ''))
    .optional(),
  VSS_LOG_LEVEL: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
  VSS_CAMERA_PROFILES: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (!text) return undefined;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be valid JSON: {"<name>": {"high": "rtsp://{ip}:554/...", "low": "rtsp://{ip}:554/..."}}' });
        return z.NEVER;
      }
      const profiles = CameraProfiles.safeParse(json);
      if (profiles.success) return profiles.data;
      for (const issue of profiles.error.issues) {
        const where = issue.path.length > 0 ? `${issue.path.join('.')} ` : '';
        ctx.addIssue({ code: 'custom', message: `${where}${issue.message}` });
      }
      return z.NEVER;
    }),
});

/**
 * The server's configuration from the environment: the only place, besides the CLI, that reads it.
 * Throws one Error naming every bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  // `PORT=` in a unit file or compose file is how a variable gets cleared: treat it as unset.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = Env.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`);
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const config = parsed.data;
  return {
    host: config.HOST,
    port: config.PORT,
    databaseUrl: config.DATABASE_URL,
    dataDir: resolve(config.VSS_DATA_DIR),
    encryptionKey: config.VSS_ENCRYPTION_KEY,
    v2ReleaseDate: config.VSS_V2_RELEASE_DATE ?? DEFAULT_V2_RELEASE_DATE,
    bodyLimit: config.VSS_BODY_LIMIT,
    logLevel: config.VSS_LOG_LEVEL,
    cameraProfiles: config.VSS_CAMERA_PROFILES,
    media:
      config.VSS_MEDIA === 'off'
        ? undefined
        : {
            segmentSeconds: config.VSS_SEGMENT_SECONDS,
            reconnectLimit: config.VSS_RECONNECT_LIMIT,
            minFreeBytes: config.VSS_MIN_FREE_BYTES,
            retentionIntervalMs: config.VSS_RETENTION_INTERVAL_SECONDS * 1000,
            ...(config.VSS_FFMPEG_PATH ? { ffmpegPath: config.VSS_FFMPEG_PATH } : {}),
            ...(config.VSS_FFPROBE_PATH ? { ffprobePath: config.VSS_FFPROBE_PATH } : {}),
          },
    publicUrl: config.VSS_PUBLIC_URL,
  };
}

/**
 * The encryption key: VSS_ENCRYPTION_KEY, else the one kept in `<dataDir>/encryption.key`, else a new
 * one written there (mode 0600), so an install without configuration can still decrypt its own
 * camera credentials after a restart.
 */
export async function resolveEncryptionKey(config: Pick<ServerConfig, 'encryptionKey' | 'dataDir'>): Promise<Buffer> {
  if (config.encryptionKey) return config.encryptionKey;
  const path = join(config.dataDir, 'encryption.key');
  try {
    return keyFromFile(path, await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(config.dataDir, { recursive: true });
  const key = randomBytes(KEY_BYTES);
  // Written in full and synced under a private name, then linked into place: link refuses an
  // existing file, so two processes starting at once agree on one key, and none reads a half-written one.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(`${key.toString('hex')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temporary, path);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return keyFromFile(path, await readFile(path, 'utf8'));
  } finally {
    await rm(temporary, { force: true });
  }
}

function keyFromFile(path: string, text: string): Buffer {
  const key = parseKey(text);
  if (!key) throw new Error(`${path} does not hold a 32-byte key (64 hex digits or base64).`);
  return key;
}
