export { buildApp } from './platform/http/app.js';
export { startServer, startServing, type RunningServer, type Serving, type ServingConfig } from './platform/serving.js';
export { loadConfig, type Config } from './platform/config.js';
export { openCore, type Core, type CoreConfig } from './platform/services.js';
export type { Store } from './store/store.js';
