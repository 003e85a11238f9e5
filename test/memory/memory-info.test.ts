/** `fisk info` shows a Memory section from configuration alone: nothing is opened or created. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InfoReport } from '../../src/cli/commands/info.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';

const dir = mkdtempSync(join(tmpdir(), 'fisk-mem-info-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function info(memory: string, ...flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const path = join(dir, `agent-${n++}.yaml`);
  writeFileSync(path, `identity: cowbot\nnats_context: prod\nsystem_prompt: hi\nllm:\n  model: m\nharness:\n  memory: ${memory}\n`);
  const io = captureIo({ PATH: process.env['PATH'] }, dir);
  const code = await runCli(['info', '--config', path, ...flags], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fisk info: Memory', () => {
  it('shows the file backend and its directory without creating it', async () => {
    const r = await info('{ enabled: true, options: { directory: /srv/never-created/mem } }');
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/\nMemory\n {2}Backend +file\n {2}Directory +\/srv\/never-created\/mem\n/u);
    expect(r.out).toMatch(/Limits +64 KB per entry, 1024 entries/u);
    expect(existsSync('/srv/never-created')).toBe(false);
  });

  it('shows the jetstream bucket, context and prefix, in JSON too', async () => {
    const r = await info('{ enabled: true, backend: jetstream, read_only: true, options: { bucket: AGENT_MEMORY } }', '--json');
    expect(r.code).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as InfoReport;
    expect(report.memory).toEqual(
      expect.arrayContaining([
        { label: 'Backend', value: 'jetstream' },
        { label: 'Bucket', value: 'AGENT_MEMORY' },
        { label: 'Context', value: 'prod' },
        { label: 'Prefix', value: 'cowbot' },
        { label: 'Access', value: 'read only (list and read)' },
      ]),
    );
  });

  it('has no section when memory is disabled', async () => {
    const r = await info('{ enabled: false }', '--json');
    expect((JSON.parse(r.out) as InfoReport).memory).toBeNull();
    expect((await info('{ enabled: false }')).out).not.toMatch(/\nMemory\n/u);
  });

  it('fails naming the option when the options block is wrong', async () => {
    const r = await info('{ enabled: true, backend: jetstream, options: { bukket: X } }');
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toContain('harness.memory.options.bukket');
  });
});
