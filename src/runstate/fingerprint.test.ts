import { describe, expect, it } from 'vitest';
import type { ToolDef } from '../llm/types.js';
import { isRunStateError } from './errors.js';
import { computeFingerprint, diffFingerprints, resumeGate, toolsHash } from './fingerprint.js';
import type { FingerprintInput } from './fingerprint.js';

const tool: ToolDef = {
  name: 'echo',
  description: 'says <it> & more',
  inputSchema: { type: 'object', properties: { b: {}, a: {} } },
  deferLoading: false,
};
const base: FingerprintInput = {
  provider: 'anthropic',
  model: 'm1',
  system: ['be brief'],
  tools: [tool],
  thinking: 'unset',
  maxTokens: 1000,
  maxIterations: 10,
};

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

  it('hashes a frozen tool list as it hashes the same list unfrozen, and an unfrozen one anew each time', () => {
    const list = [tool, { ...tool, name: 'other' }];
    const frozen = Object.freeze([...list]);
    expect(toolsHash(frozen)).toBe(toolsHash(list));
    expect(toolsHash(frozen)).toBe(toolsHash([...list]));
    // a list that can still change is never answered from what an earlier call saw
    list.push({ ...tool, name: 'third' });
    expect(toolsHash(list)).not.toBe(toolsHash(frozen));
    expect(toolsHash(list)).toBe(toolsHash(Object.freeze([...list])));
    // a frozen definition in a new list each time (every run's tool set) hashes as a copy of it does
    const def = Object.freeze({ ...tool, name: 'kept' });
    for (let i = 0; i < 2; i++) expect(toolsHash([def, tool])).toBe(toolsHash([{ ...tool, name: 'kept' }, tool]));
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
    expect(refusal(() => resumeGate(computeFingerprint(base), provider, { force: true, runId: 'r' }))).toContain(
      'provider: anthropic -> openai',
    );
  });

  it('compares a field an old journal lacks as unset', () => {
    const { max_tokens: _drop, ...old } = computeFingerprint(base);
    expect(diffFingerprints(old, computeFingerprint(base)).map((c) => c.line)).toEqual(['max_tokens: (unset) -> 1000']);
  });
});

describe('the sandbox in the fingerprint', () => {
  const boxed = { network: false, writable: ['<work directory>'], hide: ['/home/u/.ssh'] };
  const run = (sandbox: FingerprintInput['sandbox']) => computeFingerprint({ ...base, ...(sandbox === undefined ? {} : { sandbox }) });

  it('stamps nothing for a run whose tools run unsandboxed or start no process, so such journals resume as before', () => {
    expect(run(undefined).sandbox).toBeUndefined();
    expect(run({ echo: null }).sandbox).toBeUndefined();
    expect(resumeGate(run(undefined), run({ echo: null }), { force: false, runId: 'r' }).changes).toEqual([]);
  });

  it('resumes under the same or a stronger sandbox', () => {
    const stored = run({ echo: { ...boxed, network: true, writable: ['<work directory>', '/srv/out'] } });
    expect(resumeGate(stored, run({ echo: boxed }), { force: false, runId: 'r' }).changes).toEqual([]);
    expect(resumeGate(run({ echo: null }), run({ echo: boxed }), { force: false, runId: 'r' }).changes).toEqual([]);
    expect(
      resumeGate(run({ echo: boxed }), run({ echo: { ...boxed, hide: ['/home/u/.ssh', '/home/u/.aws'] } }), { force: false, runId: 'r' })
        .changes,
    ).toEqual([]);
  });

  it('refuses a weaker sandbox unless forced, naming how it is weaker, and drops restored grants when forced', () => {
    const stored = run({ echo: boxed });
    const off = refusal(() => resumeGate(stored, run(undefined), { force: false, runId: 'r' }));
    expect(off).toMatch(/sandbox: weaker \(the sandbox is off\)[\s\S]*--force/);
    const wider = refusal(() =>
      resumeGate(stored, run({ echo: { network: true, writable: ['<work directory>', '/etc'], hide: [] } }), { force: false, runId: 'r' }),
    );
    expect(wider).toContain('sandbox: weaker (echo gains the network; echo may also write /etc; echo would see /home/u/.ssh)');
    expect(refusal(() => resumeGate(stored, run({ echo: null, other: boxed }), { force: false, runId: 'r' }))).toContain(
      'sandbox: weaker (echo would run unsandboxed)',
    );
    const forced = resumeGate(stored, run(undefined), { force: true, runId: 'r' });
    expect(forced.changes.map((c) => c.field)).toEqual(['sandbox']);
    expect(forced.grantsSurvive).toBe(false);
  });

  it('treats a recorded sandbox it cannot read as stronger than anything, so an edited journal lowers no bar', () => {
    const edited = { ...run({ echo: boxed }), sandbox: '{"echo":{"network":"no"}}' };
    expect(refusal(() => resumeGate(edited, run({ echo: boxed }), { force: false, runId: 'r' }))).toContain(
      'the recorded sandbox cannot be read',
    );
  });
});
