import { newFuncTool } from './functool/functool.js';
import type { FuncToolSpec } from './functool/spec.js';
import type { FuncTool } from './functool/functool.js';

/** A minimal function tool for tests of sets and selection. Not exported from the module index. */
export function fakeTool(name: string, extra: Partial<FuncToolSpec> = {}): FuncTool {
  return newFuncTool({
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object', properties: {}, required: [] },
    handler: () => Promise.resolve({ status: 'completed', output: '{}', isError: false }),
    ...extra,
  });
}
