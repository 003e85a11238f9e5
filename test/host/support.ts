/** Shared pieces of the host tests: a tool that records its calls, and a runtime over a scripted model. */
import type { ScriptedProvider } from '../../src/agenttest/scripted-provider.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { openRuntime } from '../../src/host/index.js';
import type { Runtime } from '../../src/host/index.js';
import type { SessionStore } from '../../src/runstate/store.js';
import type { Outcome, Tool } from '../../src/toolkit/tool.js';

/** A custom tool that counts its runs; `gated` puts it behind the confirm gate. */
export interface RecordingTool extends Tool {
  readonly runs: string[];
}

export function recordingTool(name: string, opts: { gated?: boolean; run?: (input: string) => Promise<string> | string } = {}): RecordingTool {
  const runs: string[] = [];
  const schema = { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false };
  return {
    runs,
    name,
    description: `records its calls (${name})`,
    modelDescription: `records its calls (${name})`,
    inputSchema: schema,
    kind: 'custom',
    presentation: 'traced',
    capabilities: {
      prompter: false,
      workDir: false,
      operatorPaced: false,
      deferrable: false,
      gate: { gated: opts.gated === true, ...(opts.gated === true ? { trigger: 'ai:confirm' } : {}) },
      tags: [],
      behavior: null,
      describeCall: null,
    },
    definition: (deferLoading) => ({ name, description: `records its calls (${name})`, inputSchema: schema, deferLoading }),
    async execute(input): Promise<Outcome> {
      runs.push(input);
      const output = opts.run === undefined ? JSON.stringify({ ran: name }) : await opts.run(input);
      return { status: 'completed', output, isError: false };
    },
    mcpExposable: () => false,
    a2aExposable: () => false,
  };
}

/** A run runtime over `provider`, with `tools` as custom tools and, when given, `sessions` as its session store. */
export async function scriptedRuntime(provider: ScriptedProvider, tools: readonly Tool[], sessions?: SessionStore, extra = ''): Promise<Runtime> {
  const config = parseConfigForMode({ text: `identity: hosttest\nsystem_prompt: You test the host.\nllm:\n  model: test-model\n${extra}` }, 'run');
  const runtime = await openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider, customTools: tools });
  return sessions === undefined ? runtime : { ...runtime, sessions };
}
