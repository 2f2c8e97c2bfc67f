export { buildApp } from './http/app.js';
export { startServer, startServing, type RunningServer, type Serving, type ServingConfig } from './serving.js';
export { loadConfig, type Config } from './config.js';
export { openCore, type Core, type CoreConfig } from './services.js';
export type { Store } from './store/store.js';
