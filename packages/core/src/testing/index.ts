export * from './database';
export * from './hikvision-intercom';
export * from './test-clip';
export * from './rtsp-camera';
export * from './network';
export * from './dahua-intercom';
export * from './beward-intercom';
export * from './onvif-device';
