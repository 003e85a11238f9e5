/**
 * A server that changes its tool list during a call (announcing `tools/list_changed` before it
 * answers) has the new list in the very next model call, with the advisory saying what changed.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { openRuntime, startRun } from '../../src/host/index.js';
import type { Runtime } from '../../src/host/index.js';

const HOSTILE = fileURLToPath(new URL('../fixtures/hostile-mcp-server.mjs', import.meta.url));

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

const names = (model: ScriptedProvider, request: number): string[] => (model.requests[request]?.tools ?? []).map((t) => t.name);

describe('tools/list_changed during a call', () => {
  it('reaches the model call right after that call', async () => {
    const model = new ScriptedProvider([
      toolUseResponse([{ name: 'grow', input: {} }]),
      toolUseResponse([{ name: 'extra', input: {} }]),
      textResponse('done'),
    ]);
    const config = parseConfigForMode(
      {
        text: `identity: grower\nsystem_prompt: You grow things.\nllm: {model: scripted}\nmcp_clients:\n  - name: grower\n    command: ${process.execPath}\n    args: [${HOSTILE}, changing]\n    confirm: never\n`,
      },
      'run',
    );
    runtime = await openRuntime(config, 'run', { env: process.env, provider: model });
    const handle = await startRun(runtime, { prompt: 'grow, then use what grew' });
    const outcome = await handle.outcome;
    await handle.close();
    expect(outcome.status).toBe('completed');
    expect(names(model, 0)).toEqual(['grow']);
    // the very next call has the new tool and is told why
    expect(names(model, 1)).toEqual(['grow', 'extra']);
    expect(JSON.stringify(model.requests[1]?.system)).toContain('The MCP server \\"grower\\" changed its tool list: added extra.');
    // and the model could call it there and then
    const results = JSON.stringify(model.requests[2]?.messages.at(-1));
    expect(results).toContain('extra {}');
    expect(results).not.toContain('is_error":true');
  });
});
