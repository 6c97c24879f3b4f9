import type { Transport } from '../transport';

export function createSystem(transport: Transport) {
  return {
    /** Liveness: resolves when the server and its database answer; a 503 is a ServerError. */
    async health(): Promise<{ status: 'ok' }> {
      return (await transport.call('health', {})).data;
    },

    /** The server's OpenAPI 3.1 document. */
    async openApi(): Promise<Record<string, unknown>> {
      return (await transport.call('openApi', {})).data;
    },
  };
}
