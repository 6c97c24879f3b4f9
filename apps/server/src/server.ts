import { createVss, type Logger, type VssOptions } from '@vss/core';
import { toNodeListener } from 'h3';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import { resolveEncryptionKey, type ServerConfig } from './config';
import { createLogger } from './http/log';
import { version } from './version';

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  vss: Awaited<ReturnType<typeof createVss>>;
  close(): Promise<void>;
}

/** Core's options from the server's configuration. */
export async function vssOptions(config: ServerConfig, logger: Logger): Promise<VssOptions> {
  return {
    database: config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir },
    encryptionKey: await resolveEncryptionKey(config),
    v2ReleaseDate: config.v2ReleaseDate,
    ...(config.cameraProfiles ? { cameraProfiles: config.cameraProfiles } : {}),
    ...(config.media ? { media: { ...config.media, dataDir: config.dataDir } } : {}),
    logger,
  };
}

/** Starts VSS on the configured address; `overrides` lets an embedder or a test swap core options. */
export async function startServer(
  config: ServerConfig,
  overrides: Partial<VssOptions> & { logger?: Logger } = {},
): Promise<RunningServer> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  let url = '';
  const vss = await createVss({
    ...(await vssOptions(config, logger)),
    // The listening address is known only once listening, after core has started.
    publicUrl: config.publicUrl ?? (() => url),
    ...overrides,
  });
  const app = createApp({ vss, logger, bodyLimit: config.bodyLimit, version });
  const server: Server = createServer(toNodeListener(app));
  // Idle keep-alive sockets would otherwise hold close() open for their full timeout.
  server.keepAliveTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    await vss.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  url = `http://${host}:${port}`;
  logger.info('vss listening', { url, database: vss.database.kind });
  return {
    url,
    port,
    vss,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await vss.close();
    },
  };
}
