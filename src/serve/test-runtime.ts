/**
 * For the serve tests: the runtime of a served `worker` agent over a fake model server, journaling
 * to files, and a caller's transport that tells when it has sent a run's cancel.
 */
import { join } from 'node:path';
import type { Transport } from '../a2a/index.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { parseConfigForMode } from '../config/index.js';
import { openRuntime } from '../host/index.js';
import type { JournaledRuntime } from '../host/index.js';
import type { Tool } from '../toolkit/tool.js';

/** `worker`'s runtime: the fake model, `tools` as custom tools, sessions under `dir/runs`, questions on unless `humanInTheLoop` is false. */
export function workerRuntime(
  fake: FakeModelServer,
  dir: string,
  tools: readonly Tool[],
  opts: { humanInTheLoop?: boolean } = {},
): Promise<JournaledRuntime> {
  const hitl = opts.humanInTheLoop === false ? '' : '  human_in_the_loop: {enabled: true}\n';
  const config = parseConfigForMode(
    {
      text: `identity: worker\nsystem_prompt: You test.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n${hitl}  sessions: {backend: file, options: {directory: ${JSON.stringify(join(dir, 'runs'))}}}\n`,
    },
    'run',
  );
  return openRuntime(config, 'run', {
    env: { PATH: process.env['PATH'] },
    providerOptions: { baseUrl: fake.url, apiKey: 'k' },
    sessions: {},
    customTools: tools,
  });
}

/**
 * `transport` as a caller uses it, with `cancelSent` resolving once a run's cancel has been handed
 * to it: a test lets the run go on only after its worker has the cancel, however busy the machine.
 */
export function watchingCancels(transport: Transport): { readonly transport: Transport; readonly cancelSent: Promise<void> } {
  let sent!: () => void;
  const cancelSent = new Promise<void>((resolve) => (sent = resolve));
  const watched: Transport = {
    name: transport.name,
    request: (subject, data, opts) => transport.request(subject, data, opts),
    requestStream: (subject, data, opts) => transport.requestStream(subject, data, opts),
    publish: async (subject, data) => {
      await transport.publish(subject, data);
      if (subject.includes('.cancel.')) sent();
    },
    subscribe: (subject, handler) => transport.subscribe(subject, handler),
    serve: (spec) => transport.serve(spec),
  };
  return { transport: watched, cancelSent };
}
