export { buildApp } from './http/app.js';
export { startServer, type RunningServer } from './http/server.js';
export { loadConfig, type Config } from './config.js';
export { openServices, type Services } from './services.js';
export type { Store } from './store/store.js';
