import type { Camera, CameraCreated, CameraCreateV1, CameraCreateV2, CameraList, PaginationQuery } from '@vss/schema';
import { parseHttpDate } from '../errors';
import type { Transport } from '../transport';

export interface CameraCreatedV1 {
  camera: CameraCreated;
  /** Since when v1 is deprecated, from the Deprecation header (RFC 9745, `@<unix seconds>`). */
  deprecation: Date | undefined;
  /** When v1 stops working, from the Sunset header (RFC 8594). */
  sunset: Date | undefined;
}

function parseDeprecation(value: string | null): Date | undefined {
  const match = value ? /^@(-?\d+)$/.exec(value.trim()) : null;
  return match ? new Date(Number(match[1]) * 1000) : undefined;
}

export function createCameras(transport: Transport) {
  return {
    /** Camera creation v2, with archive settings per stream type. */
    async create(body: CameraCreateV2): Promise<CameraCreated> {
      return (await transport.call('createCameraV2', { body })).data;
    },

    /**
     * Camera creation v1 (deprecated): one archive setting for both stream types. Once its sunset
     * has passed the server answers 410, thrown as GoneError.
     */
    async createV1(body: CameraCreateV1): Promise<CameraCreatedV1> {
      const { data, headers } = await transport.call('createCameraV1', { body });
      return {
        camera: data,
        deprecation: parseDeprecation(headers.get('deprecation')),
        sunset: parseHttpDate(headers.get('sunset')),
      };
    },

    async list(query: Partial<PaginationQuery> = {}): Promise<CameraList> {
      return (await transport.call('listCameras', { query })).data;
    },

    async get(id: number): Promise<Camera> {
      return (await transport.call('getCamera', { params: { camera: id } })).data;
    },
  };
}
