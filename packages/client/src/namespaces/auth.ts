import type { AccessTokenRequest, ApiTokenRequest } from '@vss/schema';
import type { Transport } from '../transport';

export function createAuth(transport: Transport) {
  return {
    /**
     * Issues an API token. The server grants it only to its own console (a loopback peer with no
     * forwarding header), so this works from the server's host alone; no token is needed.
     */
    async issueApiToken(body: ApiTokenRequest): Promise<string> {
      return (await transport.call('issueApiToken', { body })).data;
    },

    /** Issues an access token for playing stream `uid` as viewer `user`. */
    async issueAccessToken(body: AccessTokenRequest): Promise<string> {
      return (await transport.call('issueAccessToken', { body })).data;
    },
  };
}
