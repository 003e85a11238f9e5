/**
 * fisk-ai as a library: build, run and serve constrained agents from TypeScript. The command-line
 * tool `fisk` is a thin layer over these modules. Each namespace is a module's curated public
 * list (its `public.ts`); everything else in the package is internal and may change.
 */
export * as config from './config/public.js';
export * as llm from './llm/public.js';
export * as toolkit from './toolkit/public.js';
export * as runstate from './runstate/public.js';
export * as memory from './memory/public.js';
export * as agent from './agent/public.js';
export * as knowledge from './knowledge/public.js';
export * as host from './host/public.js';
export * as serve from './serve/public.js';
export * from './errors/public.js';
