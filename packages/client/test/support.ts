import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export { eventually, recordEvents, streamStatus } from '../../../apps/server/test/support/media';
export { createCamera, startTestServer, type TestServer } from '../../../apps/server/test/support/server';

/** What a promise rejected with; fails the test when it resolves instead. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the call to fail, but it succeeded.');
}

/** A MAC address no other test uses (locally administered, so never a real vendor's). */
export function uniqueMac(): string {
  return `02:${randomBytes(5).toString('hex').match(/../g)!.join(':')}`;
}

/** A date as VSS_V2_RELEASE_DATE takes it. */
export const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** A plain HTTP server on a free loopback port, for answers the real server never gives. */
export async function startPlainServer(listener: RequestListener) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { closedPort, startRtspCameraServer, type RtspCameraServer } from '@vss/core/testing';

/**
 * Bare module names a built file imports or requires. A specifier starts with a word character or
 * `@`, so that code such as `["from", "duration"]` is not read as an import.
 */
export function importedModules(code: string): Set<string> {
  const names = [...code.matchAll(/(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)["']([@\w][\w@/.:-]*)["']/g)].map((match) => match[1]!);
  return new Set(names);
}
