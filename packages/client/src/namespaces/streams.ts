import {
  STREAM_RESTART_RESULT,
  type DeviceAddress,
  type Stream,
  type StreamCreate,
  type StreamRestartParams,
} from '@vss/schema';
import { ResponseValidationError } from '../errors';
import type { RpcNamespace } from '../rpc';
import type { Transport } from '../transport';

export function createStreams(transport: Transport, rpc: RpcNamespace) {
  return {
    /**
     * Stream.Restart over JSON-RPC: zeroes the reconnection data of the streams and restarts them.
     * `params` is `{ [cameraUuid]: [uid, ...] }`, `[uid, ...]`, or one uid. All or nothing: one
     * unknown uid is a JsonRpcError (-32602) and no stream is restarted.
     */
    async restart(params: StreamRestartParams): Promise<typeof STREAM_RESTART_RESULT> {
      const result = await rpc.call('Stream.Restart', params);
      if (transport.validateResponses && result !== STREAM_RESTART_RESULT) {
        const message = `Stream.Restart answered ${JSON.stringify(result)}, not "${STREAM_RESTART_RESULT}".`;
        throw new ResponseValidationError({
          message,
          status: 200,
          body: result,
          operation: 'jsonRpc',
          issues: [{ code: 'custom', path: ['result'], message, input: result }],
        });
      }
      return STREAM_RESTART_RESULT;
    },

    async get(uid: string): Promise<Stream> {
      return (await transport.call('getStream', { params: { uid } })).data;
    },

    /** Creates a camera's stream; the camera's stored archive settings for that type apply. */
    async create(cameraId: number, body: StreamCreate): Promise<Stream> {
      return (await transport.call('createStream', { params: { camera: cameraId }, body })).data;
    },

    /** The DHCP callback: the device with `mac` got address `ip`, so its camera's streams are (re)created. */
    async onDeviceAddress(body: DeviceAddress): Promise<void> {
      await transport.call('deviceAddress', { body });
    },
  };
}
