/**
 * fisk-ai as a library: build, run and serve constrained agents from TypeScript. The command-line
 * tool `fisk` is a thin layer over these modules.
 */
export * as config from './config/index.js';
export * as llm from './llm/index.js';
export * as toolkit from './toolkit/index.js';
export * as runstate from './runstate/public.js';
export * as memory from './memory/index.js';
export * as agent from './agent/index.js';
export * as knowledge from './knowledge/index.js';
export * as host from './host/index.js';
export * as telemetry from './telemetry/index.js';
