/**
 * A provider an embedder registers at run time has its credential variables kept from every tool
 * subprocess: the union is computed from the registry when the runtime opens, not from a list.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import type { ToolResultBlock } from '../../src/llm/types.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { openRuntime, startRun } from '../../src/host/index.js';
import { register } from '../../src/llm/providers.js';

const app = fileURLToPath(new URL('../fixtures/fisk-app.mjs', import.meta.url));

describe('a provider registered at run time', () => {
  it('never has its key reach a tool subprocess', async () => {
    const model = new ScriptedProvider([toolUseResponse([{ id: 'e1', name: 'env', input: {} }]), textResponse('seen')]);
    let built = 0;
    register(
      'acme-late',
      () => {
        built++;
        return model;
      },
      ['ACME_LATE_API_KEY'],
    );
    const config = parseConfigForMode(
      {
        text: `identity: creds\napplication_path: ${app}\nsystem_prompt: You look around.\nllm:\n  provider: acme-late\n  model: acme-1\n`,
      },
      'run',
    );
    const env = { PATH: process.env['PATH'], ACME_LATE_API_KEY: 'acme-secret-value-123456', HARMLESS_SETTING: 'visible-to-tools' };
    const runtime = await openRuntime(config, 'run', { env });
    expect(built).toBe(1);
    expect(runtime.credentialEnvNames).toContain('ACME_LATE_API_KEY');

    const handle = await startRun(runtime, { prompt: 'print your environment' });
    const outcome = await handle.outcome;
    await handle.close();
    await runtime.close();
    expect(outcome.status).toBe('completed');

    const results = (model.requests[1]?.messages ?? [])
      .flatMap((m) => m.content)
      .filter((b): b is ToolResultBlock => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    const text = JSON.stringify(results[0]?.content);
    // the tool ran with the environment it was given, minus the credential
    expect(text).toContain('HARMLESS_SETTING');
    expect(text).toContain('visible-to-tools');
    expect(text).not.toContain('ACME_LATE_API_KEY');
    expect(text).not.toContain('acme-secret-value-123456');
  });
});
