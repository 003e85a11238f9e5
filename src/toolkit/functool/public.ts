/** Tools written as functions, as the package offers them to embedders. */
export { FuncTool, newFuncTool, jsonOutcome, errorOutcome } from './index.js';
export type { Exposure, FuncCall, FuncHandler, FuncOrigin, FuncToolSpec } from './index.js';
