export { buildApp } from './app/http/app.js';
export { startServer, startServing, type RunningServer, type Serving, type ServingConfig } from './app/serving.js';
export { loadConfig, type Config } from './platform/config.js';
export { openCore, type Core, type CoreConfig } from './app/core.js';
export type { Store } from './store/store.js';
