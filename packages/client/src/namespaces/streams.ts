import {
  STREAM_RESTART_RESULT,
  StreamGetMediaUrlsResult,
  type ArchiveRange,
  type DeviceAddress,
  type Stream,
  type StreamCreate,
  type StreamGetMediaUrlsParams,
  type StreamRestartParams,
} from '@vss/schema';
import { z } from 'zod';
import { parseByContract } from '../errors';
import type { JsonRpcParams, RpcNamespace } from '../rpc';
import type { Transport } from '../transport';

export function createStreams(transport: Transport, rpc: RpcNamespace) {
  /** Calls a JSON-RPC method and checks its result against the method's contract, as the transport checks responses. */
  async function callChecked<S extends z.ZodType>(method: string, params: JsonRpcParams, result: S): Promise<z.output<S>> {
    const answer = await rpc.call(method, params);
    if (!transport.validateResponses) return answer as z.output<S>;
    return parseByContract(result, answer, { status: 200, body: answer, operation: 'jsonRpc', what: `The ${method} result` });
  }

  return {
    /**
     * Stream.Restart over JSON-RPC: zeroes the reconnection data of the streams and restarts them.
     * `params` is `{ [cameraUuid]: [uid, ...] }`, `[uid, ...]`, or one uid. All or nothing: one
     * unknown uid is a JsonRpcError (-32602) and no stream is restarted.
     */
    async restart(params: StreamRestartParams): Promise<typeof STREAM_RESTART_RESULT> {
      return callChecked('Stream.Restart', params, z.literal(STREAM_RESTART_RESULT));
    },

    /**
     * Stream.GetMediaUrls over JSON-RPC: per uid, a fresh access token for `user` (default
     * "viewer") valid for `ttl` seconds (default 3600, 0 = no expiry) and the absolute URLs of the
     * live playlist, preview, player, and the archive playlist and MP4 export, whose `{from}` (Unix
     * seconds) and `{duration}` (seconds) are left for the caller to fill in. All or nothing: one
     * unknown uid is a JsonRpcError (-32602).
     */
    async getMediaUrls(params: StreamGetMediaUrlsParams): Promise<StreamGetMediaUrlsResult> {
      return callChecked('Stream.GetMediaUrls', params, StreamGetMediaUrlsResult);
    },

    /** The stretches of continuous recording in the stream's archive, in Unix seconds, oldest first. */
    async archiveRanges(uid: string): Promise<ArchiveRange[]> {
      return (await transport.call('getArchiveRanges', { params: { uid } })).data.data;
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
