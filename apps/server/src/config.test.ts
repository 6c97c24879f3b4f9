import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, resolveEncryptionKey } from './config';

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: undefined,
      dataDir: resolve('./data'),
      encryptionKey: undefined,
      v2ReleaseDate: new Date('2026-11-21T00:00:00Z'),
      bodyLimit: 1048576,
      logLevel: 'info',
      cameraProfiles: undefined,
      media: { segmentSeconds: 2, reconnectLimit: 500, minFreeBytes: 1024 ** 3, retentionIntervalMs: 60_000 },
      publicUrl: undefined,
    });
  });

  it('turns the media engine off and refuses a segment length out of range', () => {
    expect(loadConfig({ VSS_MEDIA: 'off' }).media).toBeUndefined();
    expect(() => loadConfig({ VSS_SEGMENT_SECONDS: '0' })).toThrow('VSS_SEGMENT_SECONDS must be a whole number from 1 to 10');
    expect(loadConfig({ VSS_PUBLIC_URL: 'https://video.example.net/' }).publicUrl).toBe('https://video.example.net');
  });

  it('reads every variable', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '0',
      DATABASE_URL: 'postgres://vss:pw@db/vss',
      VSS_DATA_DIR: '/var/lib/vss',
      VSS_ENCRYPTION_KEY: key.toString('hex'),
      VSS_V2_RELEASE_DATE: '2027-01-31',
      VSS_BODY_LIMIT: '2048',
      VSS_LOG_LEVEL: 'debug',
      VSS_CAMERA_PROFILES: '{"axis":{"high":"rtsp://{ip}:554/axis-media/media.amp","low":"rtsp://{ip}:554/axis-media/media.amp?resolution=640x360"}}',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      databaseUrl: 'postgres://vss:pw@db/vss',
      dataDir: '/var/lib/vss',
      v2ReleaseDate: new Date('2027-01-31T00:00:00Z'),
      bodyLimit: 2048,
      logLevel: 'debug',
      cameraProfiles: { axis: { high: 'rtsp://{ip}:554/axis-media/media.amp' } },
    });
    expect(config.encryptionKey).toEqual(key);
    expect(loadConfig({ VSS_ENCRYPTION_KEY: key.toString('base64') }).encryptionKey).toEqual(key);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', VSS_LOG_LEVEL: '' })).toMatchObject({ port: 8080, logLevel: 'info' });
  });

  it.each(['65536', '-1', '80.5', 'http', '1e3'])('refuses PORT=%s', (port) => {
    expect(() => loadConfig({ PORT: port })).toThrow(/PORT must be an integer from 0 to 65535/);
  });

  it('explains bad VSS_CAMERA_PROFILES JSON', () => {
    expect(() => loadConfig({ VSS_CAMERA_PROFILES: '{axis:' })).toThrow(/VSS_CAMERA_PROFILES must be valid JSON/);
    expect(() => loadConfig({ VSS_CAMERA_PROFILES: '{"axis":{"high":"rtsp://cam/1","low":"rtsp://{ip}/2"}}' })).toThrow(
      /VSS_CAMERA_PROFILES axis\.high must contain \{ip\}/,
    );
    expect(() => loadConfig({ VSS_CAMERA_PROFILES: '{"axis":{"high":"rtsp://{ip}/1"}}' })).toThrow(/VSS_CAMERA_PROFILES axis\.low/);
  });

  it('lists every bad variable in one error, without echoing secrets', () => {
    const secretUrl = 'mysql://vss:hunter2@db/vss';
    const secretKey = 'hunter3-is-not-a-key';
    let message = '';
    try {
      loadConfig({ DATABASE_URL: secretUrl, VSS_ENCRYPTION_KEY: secretKey, VSS_LOG_LEVEL: 'loud', VSS_BODY_LIMIT: '0', VSS_V2_RELEASE_DATE: '2026-13-01' });
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of ['DATABASE_URL', 'VSS_ENCRYPTION_KEY', 'VSS_LOG_LEVEL', 'VSS_BODY_LIMIT', 'VSS_V2_RELEASE_DATE']) {
      expect(message).toContain(name);
    }
    expect(message).not.toMatch(/hunter/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => loadConfig({ VSS_ENCRYPTION_KEY: 'ab'.repeat(31) })).toThrow(/VSS_ENCRYPTION_KEY/);
    expect(() => loadConfig({ VSS_ENCRYPTION_KEY: Buffer.alloc(31).toString('base64') })).toThrow(/VSS_ENCRYPTION_KEY/);
  });
});

describe('resolveEncryptionKey', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vss-config-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses the configured key', async () => {
    const key = Buffer.alloc(32, 1);
    expect(await resolveEncryptionKey({ encryptionKey: key, dataDir: dir })).toBe(key);
  });

  it('creates a 0600 key file in a new data directory and reuses it on the next start', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const first = await resolveEncryptionKey({ encryptionKey: undefined, dataDir });
    expect(first).toHaveLength(32);
    const file = join(dataDir, 'encryption.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first.toString('hex'));
    expect(await resolveEncryptionKey({ encryptionKey: undefined, dataDir })).toEqual(first);
  });

  it('gives one key to concurrent first starts', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => resolveEncryptionKey({ encryptionKey: undefined, dataDir: dir })));
    expect(keys[1]).toEqual(keys[0]);
    expect(keys[2]).toEqual(keys[0]);
  });

  it('refuses a damaged key file rather than replacing it', async () => {
    await writeFile(join(dir, 'encryption.key'), 'not a key\n');
    await expect(resolveEncryptionKey({ encryptionKey: undefined, dataDir: dir })).rejects.toThrow(/does not hold a 32-byte key/);
  });
});
