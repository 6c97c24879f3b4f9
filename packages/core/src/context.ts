import type { AccessTokenSigner, SecretBox } from './crypto';
import type { Database } from './db/client';
import type { IntercomDriver } from './drivers/intercom/types';
import type { Logger } from './logger';

/** RTSP URL templates of a camera profile; `{ip}` is replaced by the device's address. */
export interface CameraProfile {
  high: string;
  low: string;
}

export const BUILT_IN_CAMERA_PROFILES: Record<string, CameraProfile> = {
  hikvision: {
    high: 'rtsp://{ip}:554/Streaming/Channels/101',
    low: 'rtsp://{ip}:554/Streaming/Channels/102',
  },
  dahua: {
    high: 'rtsp://{ip}:554/cam/realmonitor?channel=1&subtype=0',
    low: 'rtsp://{ip}:554/cam/realmonitor?channel=1&subtype=1',
  },
  generic: {
    high: 'rtsp://{ip}:554/stream1',
    low: 'rtsp://{ip}:554/stream2',
  },
};

/** What every service shares: built once by createVss. */
export interface CoreContext {
  db: Database;
  secrets: SecretBox;
  accessTokens: AccessTokenSigner;
  logger: Logger;
  now: () => Date;
  cameraProfiles: Record<string, CameraProfile>;
  intercomDrivers: Record<string, IntercomDriver>;
}
