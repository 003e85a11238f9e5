// End to end: a real `fisk mcp` process with telemetry on, exporting to an OTLP/HTTP receiver run
// in this test; each served call is a tool span with no parent, whatever way it ended.
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../../src/agenttest/index.js';
import type { OtlpReceiver, ReceivedSpan } from '../../src/agenttest/otlp-receiver.js';
import { connectClient, resultText } from '../../src/mcp/server/test-support.js';
import { agentDir, ensureBuilt, PID_APP, startFiskMcp } from './support.js';

const yaml = (telemetry: string): string => `identity: pidapp-agent
application_path: ${PID_APP}
expose:
  agent:
    mcp: {}
${telemetry}`;

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.allSettled(receivers.splice(0).map((r) => r.close()));
});

async function serveAndCall(
  telemetry: (receiver: OtlpReceiver) => string,
  args: string[] = [],
): Promise<{ receiver: OtlpReceiver; stderr: string; code: number | null }> {
  ensureBuilt();
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const agent = agentDir(yaml(telemetry(receiver)));
  const server = await startFiskMcp(agent.config, agent.dir, {}, args);
  try {
    const c = await connectClient(server.url);
    const ok = await c.callTool({ name: 'echo', arguments: { word: 'tangerine' } });
    expect(resultText(ok)).toContain('tangerine');
    const missing = await c.callTool({ name: 'echo', arguments: {} });
    expect(missing.isError).toBe(true);
    const failed = await c.callTool({ name: 'fail', arguments: {} });
    expect(resultText(failed)).toContain('"exit_code":3');
    await c.close();
    server.child.kill('SIGINT');
    const code = await server.exited;
    return { receiver, stderr: server.stderr(), code };
  } finally {
    await server.kill();
    agent.cleanup();
  }
}

function toolSpans(receiver: OtlpReceiver, name: string): ReceivedSpan[] {
  return receiver.spans.filter((s) => s.name === `execute_tool ${name}`);
}

describe('fisk mcp telemetry', () => {
  it('exports one root tool span per served call, with its exit, and no arguments', async () => {
    const { receiver, stderr, code } = await serveAndCall(
      (r) => `telemetry:\n  enabled: true\n  endpoint: ${r.url}\n  protocol: http/json\n`,
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/telemetry: 3 of 3 spans delivered/);
    const echo = toolSpans(receiver, 'echo');
    expect(echo.map((s) => s.attributes['fisk.tool.exit']).sort()).toEqual(['invalid_arguments', 'ok']);
    for (const s of echo) {
      expect(s.parentSpanId).toBe('');
      expect(s.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'fisk.tool.kind': 'command',
      });
    }
    const [fail] = toolSpans(receiver, 'fail');
    expect(fail?.attributes).toMatchObject({ 'fisk.tool.exit': 'failed', 'fisk.tool.exit_code': 3, 'error.type': 'tool_failed' });
    expect(fail?.status.code).toBe(2);
    expect(receiver.allBodies().toString('latin1')).not.toContain('tangerine');
  }, 120_000);

  it('exports nothing with --no-telemetry', async () => {
    const { receiver, stderr, code } = await serveAndCall((r) => `telemetry:\n  enabled: true\n  endpoint: ${r.url}\n`, ['--no-telemetry']);
    expect(code).toBe(0);
    expect(stderr).not.toContain('spans delivered');
    expect(receiver.exports).toHaveLength(0);
  }, 120_000);
});
