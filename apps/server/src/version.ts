import { createRequire } from 'node:module';

/** The server's own version, for the OpenAPI document and `vss --version`. */
export const version: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
