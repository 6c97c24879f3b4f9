export { createApp, type AppOptions } from './app';
export { loadConfig, type ServerConfig } from './config';
export { createLogger } from './http/log';
export { startServer, type RunningServer } from './server';
