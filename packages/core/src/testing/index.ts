export * from './database';
export * from './hikvision-intercom';
export * from './test-clip';
export * from './rtsp-camera';
export * from './network';
