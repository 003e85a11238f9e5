import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../../config/index.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import { INIT_PROVIDERS, starterConfig } from './init.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'fisk-init-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('fisk init', () => {
  it('writes a commented agent.yaml that is a valid configuration for each provider', () => {
    for (const provider of INIT_PROVIDERS) {
      const text = starterConfig(provider);
      expect(text).toMatch(/^# /m);
      const config = parseConfigForMode({ text, name: `${provider}.yaml` }, 'run');
      expect(config.llm.provider).toBe(provider);
    }
  });

  it('hints at a harness block that, uncommented, turns on what its comments say', () => {
    const text = starterConfig('anthropic');
    const lines = text.split('\n');
    const start = lines.indexOf('# harness:');
    expect(start).toBeGreaterThan(-1);
    const uncommented = lines.map((line, i) => (i >= start && line.startsWith('# ') ? line.slice(2) : line)).join('\n');
    const config = parseConfigForMode({ text: uncommented, name: 'uncommented.yaml' }, 'run');
    expect(config.harness.memory.enabled).toBe(true);
    expect(config.harness.humanInTheLoop).toBe(true);
    expect(config.harness.confirmTags).toEqual(['impact:rw']);
  });

  it('writes agent.yaml in the current directory and prints the next two commands', async () => {
    const dir = tempDir();
    const io = captureIo({}, dir);
    expect(await runCli(['init', '--provider', 'openai'], io)).toBe(0);
    const text = readFileSync(join(dir, 'agent.yaml'), 'utf8');
    expect(text).toContain('provider: openai');
    expect(io.stderr()).toContain('fisk info --config agent.yaml');
    expect(io.stderr()).toContain('fisk run --config agent.yaml "What can you do?"');
    expect(io.stderr()).toContain('OPENAI_API_KEY');
    expect(io.stdout()).toBe('');
  });

  it('refuses to overwrite an existing file, naming it, and leaves it untouched', async () => {
    const dir = tempDir();
    const path = join(dir, 'mine.yaml');
    writeFileSync(path, 'identity: precious\n');
    const io = captureIo({}, dir);
    expect(await runCli(['init', 'mine.yaml'], io)).toBe(2);
    expect(io.stderr()).toContain(`${path} already exists`);
    expect(readFileSync(path, 'utf8')).toBe('identity: precious\n');
  });

  it('names a missing directory and how to create it', async () => {
    const dir = tempDir();
    const io = captureIo({}, dir);
    expect(await runCli(['init', 'agents/ops/agent.yaml'], io)).toBe(2);
    expect(io.stderr()).toContain(
      `the directory ${join(dir, 'agents', 'ops')} does not exist; create it first (mkdir -p ${join(dir, 'agents', 'ops')})`,
    );
  });

  it('refuses a provider it does not know, listing the choices', async () => {
    const dir = tempDir();
    const io = captureIo({}, dir);
    expect(await runCli(['init', '--provider', 'antropic'], io)).toBe(2);
    expect(io.stderr()).toMatch(/anthropic, openai, openai-chat/);
  });
});
