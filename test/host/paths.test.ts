/**
 * An agent runs the same from anywhere: with `application_path`, the knowledge paths and store
 * directory, the memory directory and the session directory all written relative, `fisk knowledge
 * index`, `fisk info` and `fisk run --checkpoint` started from another working directory find
 * everything beside agent.yaml and create nothing where they were started.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { InfoReport } from '../../src/cli/commands/info.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';

let fake: FakeModelServer;
let root: string;
let agentDir: string;
let elsewhere: string;

beforeAll(async () => {
  fake = await startFakeModelServer();
  root = mkdtempSync(join(tmpdir(), 'fisk-paths-'));
  agentDir = join(root, 'agent');
  elsewhere = join(root, 'elsewhere');
  mkdirSync(join(agentDir, 'bin'), { recursive: true });
  mkdirSync(join(agentDir, 'docs'), { recursive: true });
  mkdirSync(elsewhere);
  for (const f of ['fisk-app.mjs', 'fisk-app.json'])
    copyFileSync(fileURLToPath(new URL(`../fixtures/${f}`, import.meta.url)), join(agentDir, 'bin', f));
  writeFileSync(join(agentDir, 'docs/backups.md'), '# Backups\n\nBackups are kept for thirty days in the vault.\n');
  writeFileSync(
    join(agentDir, 'agent.yaml'),
    `identity: wanderer
application_path: bin/fisk-app.mjs
system_prompt: You help the operator.
llm:
  model: claude-sonnet-4-6
  no_tool_search: true
harness:
  memory: {enabled: true, backend: file, options: {directory: state/memory}}
  knowledge: {enabled: true, paths: [docs], directory: state/kb}
  sessions: {backend: file, options: {directory: state/runs}}
`,
  );
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

async function fisk(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], HOME: root, XDG_STATE_HOME: join(root, 'xdg') }, elsewhere);
  const code = await runCli(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

function toolResultText(body: unknown, id: string): string {
  const messages = (body as { messages: { content: unknown }[] }).messages;
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type: string; tool_use_id?: string; content?: unknown }[]) {
      if (b.type === 'tool_result' && b.tool_use_id === id) return JSON.stringify(b.content);
    }
  }
  throw new Error(`no tool result ${id} in the request`);
}

describe('relative paths resolve against the directory holding agent.yaml', () => {
  it('indexes, lists and runs from another working directory', async () => {
    const config = join('..', 'agent', 'agent.yaml');
    const indexed = await fisk(['knowledge', '--config', config, 'index']);
    expect(indexed.code, indexed.err).toBe(EXIT.ok);
    expect(existsSync(join(agentDir, 'state/kb'))).toBe(true);

    const listed = await fisk(['info', '--config', config, '--json']);
    expect(listed.code, listed.err).toBe(EXIT.ok);
    expect((JSON.parse(listed.out) as InfoReport).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'knowledge_search', 'memory_write']),
    );

    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'k1', name: 'knowledge_search', input: { query: 'backups vault' } }]),
      anthropicToolUse([{ id: 'a1', name: 'echo', input: { first: 'hello' } }]),
      anthropicToolUse([
        { id: 'm1', name: 'memory_write', input: { key: 'retention', description: 'backup retention', content: 'thirty days' } },
      ]),
      anthropicText('Thirty days.'),
    );
    const ran = await fisk([
      'run',
      '--config',
      config,
      '--checkpoint',
      '--name',
      'wander-1',
      '--base-url',
      fake.url,
      '--api-key',
      'k',
      'how long are backups kept?',
    ]);
    expect(ran.code, ran.err).toBe(EXIT.ok);
    expect(fake.requests).toHaveLength(4);
    expect(toolResultText(fake.requests[1]?.body, 'k1')).toContain('thirty days in the vault');
    expect(toolResultText(fake.requests[2]?.body, 'a1')).toContain('positionals');
    expect(readFileSync(join(agentDir, 'state/memory/retention.md'), 'utf8')).toContain('thirty days');
    expect(readdirSync(join(agentDir, 'state/runs')).join(' ')).toContain('wander-1');
    const sessions = await fisk(['session', '--config', config, 'ls']);
    expect(sessions.code, sessions.err).toBe(EXIT.ok);
    expect(sessions.out).toContain('wander-1');
    // nothing was created where the commands were started
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
