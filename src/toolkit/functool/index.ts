/** Tools built from a function spec: built-ins, custom tools and imported tools. */
export { FuncTool, newFuncTool, jsonOutcome, errorOutcome } from './functool.js';
export type { Exposure, FuncCall, FuncHandler, FuncOrigin, FuncToolSpec } from './spec.js';
