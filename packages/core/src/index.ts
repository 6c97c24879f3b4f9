export { BUILT_IN_CAMERA_PROFILES, type CameraProfile } from './context';
export { maskUrlPassword, type AccessTokenClaims } from './crypto';
export * from './drivers/intercom';
export { isVssError, VssError } from './errors';
export { silentLogger, type Logger } from './logger';
export type { Principal } from './services/tokens';
export type { V1Lifecycle } from './services/cameras';
export { createVss, DEFAULT_V2_RELEASE_DATE, migrateDatabase, type Vss, type VssOptions } from './vss';
