import { describe, expect, it } from 'vitest';
import type { ToolDef } from '../llm/types.js';
import { isRunStateError } from './errors.js';
import { computeFingerprint, diffFingerprints, resumeGate, toolsHash } from './fingerprint.js';
import type { FingerprintInput } from './fingerprint.js';

const tool: ToolDef = { name: 'echo', description: 'says <it> & more', inputSchema: { type: 'object', properties: { b: {}, a: {} } }, deferLoading: false };
const base: FingerprintInput = { provider: 'anthropic', model: 'm1', system: ['be brief'], tools: [tool], thinking: 'unset', maxTokens: 1000, maxIterations: 10 };

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(isRunStateError(err, 'fingerprint')).toBe(true);
    return (err as Error).message;
  }
  throw new Error('the gate let the resume through');
}

describe('fingerprint', () => {
  it('is stable under schema key order and changes with the tool set', () => {
    const reordered: ToolDef = { ...tool, inputSchema: { properties: { a: {}, b: {} }, type: 'object' } };
    expect(toolsHash([reordered])).toBe(toolsHash([tool]));
    expect(toolsHash([{ ...tool, deferLoading: true }])).not.toBe(toolsHash([tool]));
    expect(computeFingerprint(base).thinking_mode).toBe('off');
    expect(computeFingerprint({ ...base, thinking: 'on' }).thinking_mode).toBe('summarized');
  });

  it('does not store the system prompt', () => {
    expect(JSON.stringify(computeFingerprint(base))).not.toContain('be brief');
  });

  it('passes an unchanged configuration', () => {
    expect(resumeGate(computeFingerprint(base), computeFingerprint(base), { force: false, runId: 'r' }).changes).toEqual([]);
  });

  it('refuses naming every changed field', () => {
    const now = computeFingerprint({ ...base, model: 'm2', system: ['be long'], tools: [], maxIterations: 20 });
    const msg = refusal(() => resumeGate(computeFingerprint(base), now, { force: false, runId: 'r' }));
    for (const line of ['model: m1 -> m2', 'system prompt: changed', 'tool set: changed', 'max_iterations: 10 -> 20', '--force']) {
      expect(msg).toContain(line);
    }
    expect(msg).not.toContain('thinking');
  });

  it('lets --force override everything but the provider, dropping grants on a tool change', () => {
    const tools = computeFingerprint({ ...base, tools: [] });
    expect(resumeGate(computeFingerprint(base), tools, { force: true, runId: 'r' }).grantsSurvive).toBe(false);
    const model = computeFingerprint({ ...base, model: 'x' });
    expect(resumeGate(computeFingerprint(base), model, { force: true, runId: 'r' }).grantsSurvive).toBe(true);
    const provider = computeFingerprint({ ...base, provider: 'openai' });
    expect(refusal(() => resumeGate(computeFingerprint(base), provider, { force: true, runId: 'r' }))).toContain('provider: anthropic -> openai');
  });

  it('compares a field an old journal lacks as unset', () => {
    const { max_tokens: _drop, ...old } = computeFingerprint(base);
    expect(diffFingerprints(old, computeFingerprint(base)).map((c) => c.line)).toEqual(['max_tokens: (unset) -> 1000']);
  });
});
