#!/usr/bin/env node
import { createVss, migrateDatabase } from '@vss/core';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { createLogger } from './http/log';
import { startServer, vssOptions } from './server';
import { version } from './version';

const USAGE = `Usage: vss <command>

Commands:
  start                                   start the server (HOST, PORT, DATABASE_URL, VSS_DATA_DIR, VSS_*)
  migrate                                 apply database migrations and exit
  token issue --client C --duration N     issue an API token (N seconds, 0 = no expiry); prints the token
  token list                              list API tokens (never the tokens themselves)
  token revoke ID                         revoke an API token
  --version                               print the version
`;

class UsageError extends Error {}

function intOption(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number.`);
  return Number(value);
}

/** Runs the console commands straight on the database, without the HTTP server. */
async function withVss<T>(run: (vss: Awaited<ReturnType<typeof createVss>>) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: 'warn' });
  const vss = await createVss(await vssOptions(config, logger));
  try {
    return await run(vss);
  } finally {
    await vss.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, subcommand, ...rest] = argv;
  switch (command) {
    case 'start': {
      const config = loadConfig(process.env);
      const server = await startServer(config);
      const stop = async (signal: string) => {
        process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'stopping', signal })}\n`);
        await server.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
      return -1;
    }
    case 'migrate': {
      const config = loadConfig(process.env);
      await migrateDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir });
      console.log('Migrations applied.');
      return 0;
    }
    case 'token':
      return tokenCommand(subcommand, rest);
    case '--version':
    case 'version':
      console.log(version);
      return 0;
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

async function tokenCommand(subcommand: string | undefined, args: string[]): Promise<number> {
  switch (subcommand) {
    case 'issue': {
      const { values } = parseArgs({ args, options: { client: { type: 'string' }, duration: { type: 'string' } } });
      if (!values.client) throw new UsageError('--client is required.');
      const duration = intOption(values.duration, 'duration');
      const token = await withVss((vss) => vss.tokens.issueApiToken({ client: values.client, duration }));
      console.log(token);
      return 0;
    }
    case 'list': {
      const tokens = await withVss((vss) => vss.tokens.listApiTokens());
      console.table(tokens);
      return 0;
    }
    case 'revoke': {
      const id = intOption(args[0], 'id');
      await withVss((vss) => vss.tokens.revokeApiToken(id));
      console.log(`Token ${id} revoked.`);
      return 0;
    }
    default:
      throw new UsageError('Usage: vss token issue|list|revoke');
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    // Only messages meant for people: a VssError or a configuration error, never a stack.
    console.error(`vss: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
