/** Shared pieces of the host tests: a tool that records its calls, and a runtime over a scripted model. */
import type { ScriptedProvider } from '../../src/agenttest/scripted-provider.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { openRuntime } from '../../src/host/index.js';
import type { RunRuntime } from '../../src/host/index.js';
import type { SessionStore } from '../../src/runstate/store.js';
import { completed, testTool } from '../../src/agenttest/test-tool.js';
import type { Tool } from '../../src/toolkit/tool.js';

/** A custom tool that counts its runs; `gated` puts it behind the confirm gate. */
export interface RecordingTool extends Tool {
  readonly runs: string[];
}

export function recordingTool(
  name: string,
  opts: { gated?: boolean; run?: (input: string) => Promise<string> | string } = {},
): RecordingTool {
  const runs: string[] = [];
  const tool = testTool({
    name,
    description: `records its calls (${name})`,
    properties: { note: { type: 'string' } },
    gated: opts.gated === true,
    execute: async (input) => {
      runs.push(input);
      return completed(opts.run === undefined ? JSON.stringify({ ran: name }) : await opts.run(input));
    },
  });
  return Object.assign(tool, { runs });
}

/** A run runtime over `provider`, with `tools` as custom tools and, when given, `sessions` as its session store. */
export async function scriptedRuntime(
  provider: ScriptedProvider,
  tools: readonly Tool[],
  sessions?: SessionStore,
  extra = '',
): Promise<RunRuntime> {
  const config = parseConfigForMode(
    { text: `identity: hosttest\nsystem_prompt: You test the host.\nllm:\n  model: test-model\n${extra}` },
    'run',
  );
  const runtime = await openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider, customTools: tools });
  return sessions === undefined ? runtime : { ...runtime, sessions };
}
