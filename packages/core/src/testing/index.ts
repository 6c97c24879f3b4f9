export * from './database';
export * from './hikvision-intercom';
