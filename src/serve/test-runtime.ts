/** For the serve tests: the runtime of a served `worker` agent over a fake model server, journaling to files. */
import { join } from 'node:path';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { parseConfigForMode } from '../config/index.js';
import { openRuntime } from '../host/index.js';
import type { JournaledRuntime } from '../host/index.js';
import type { Tool } from '../toolkit/tool.js';

/** `worker`'s runtime: the fake model, `tools` as custom tools, sessions under `dir/runs`, questions on unless `humanInTheLoop` is false. */
export function workerRuntime(fake: FakeModelServer, dir: string, tools: readonly Tool[], opts: { humanInTheLoop?: boolean } = {}): Promise<JournaledRuntime> {
  const hitl = opts.humanInTheLoop === false ? '' : '  human_in_the_loop: {enabled: true}\n';
  const config = parseConfigForMode(
    {
      text: `identity: worker\nsystem_prompt: You test.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n${hitl}  sessions: {backend: file, options: {directory: ${JSON.stringify(join(dir, 'runs'))}}}\n`,
    },
    'run',
  );
  return openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, providerOptions: { baseUrl: fake.url, apiKey: 'k' }, sessions: {}, customTools: tools });
}
