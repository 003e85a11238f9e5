/** A lent tool call through `fisk serve`'s tool server is a tool span when telemetry is on. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A2aClient, InprocBus, createTransport } from '../a2a/index.js';
import { startOtlpReceiver } from '../agenttest/index.js';
import type { OtlpReceiver } from '../agenttest/otlp-receiver.js';
import { ScriptedProvider } from '../agenttest/scripted-provider.js';
import { parseConfigForMode } from '../config/index.js';
import { HostTelemetry, openRuntime } from '../host/index.js';
import { newFuncTool } from '../toolkit/functool/index.js';
import { startToolServer } from './tool-server.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

describe('served tool calls and telemetry', () => {
  it('records one tool span per lent call, with no argument text', async () => {
    const config = parseConfigForMode(
      {
        text: `identity: lender\nsystem_prompt: You lend tools.\nnats_context: unused\nllm:\n  model: m\nexpose:\n  agent:\n    a2a:\n      serve_tools: true\ntelemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n`,
      },
      'run',
    );
    const echo = newFuncTool({
      name: 'echo_text',
      description: 'Echoes its text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      exposure: { mcp: false, a2a: true },
      handler: (input) => Promise.resolve({ status: 'completed', output: String(input['text']), isError: false }),
    });
    const telemetry = await HostTelemetry.open(config, { env: {} });
    const runtime = await openRuntime(config, 'run', { env: {}, provider: new ScriptedProvider([]), customTools: [echo] });
    const bus = new InprocBus();
    try {
      const server = await startToolServer(runtime, {
        version: '1.0.0',
        workDir: process.cwd(),
        transport: createTransport('inproc', { bus }),
        wrappers: [telemetry.servedToolWrapper()],
      });
      const reply = await new A2aClient(createTransport('inproc', { bus }), 'borrower').callTool('lender', 'echo_text', {
        text: 'SECRET-ARGUMENT',
      });
      expect(reply.output).toBe('SECRET-ARGUMENT');
      await server.drain();
    } finally {
      await runtime.close();
    }
    expect(await telemetry.finish()).toMatch(/1 of 1 spans delivered/);
    const spans = receiver.spans.filter((s) => s.name === 'execute_tool echo_text');
    expect(spans).toHaveLength(1);
    expect(receiver.allBodies().toString('latin1')).not.toContain('SECRET-ARGUMENT');
  });
});
