/**
 * One failure, one exit status: each failure below is run through every command that meets it,
 * and every command exits with the status `exitFor` gives that failure's category.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';

const app = fileURLToPath(new URL('../fixtures/fisk-app.mjs', import.meta.url));
let root: string;
let cases = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fisk-exit-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BASE = `identity: exits
system_prompt: You test exit statuses.
llm:
  model: claude-sonnet-4-6
expose:
  agent:
    mcp: {}
`;

type Command = 'run' | 'info' | 'mcp' | 'knowledge' | 'session' | 'memory';

const ARGS: Record<Command, readonly string[]> = {
  run: ['run', '--api-key', 'k', '--base-url', 'http://127.0.0.1:9', 'hello'],
  info: ['info'],
  mcp: ['mcp'],
  knowledge: ['knowledge', 'stats'],
  session: ['session', '--config', 'agent.yaml', 'ls'],
  memory: ['memory', 'ls'],
};

interface Failure {
  readonly name: string;
  /** The agent.yaml text, or undefined for no file at all. */
  readonly yaml: string | undefined;
  readonly env?: Record<string, string>;
  readonly commands: readonly Command[];
  readonly expected: number;
  readonly message: RegExp;
}

const FAILURES: readonly Failure[] = [
  {
    name: 'a tool-name collision',
    yaml: `${BASE}application_path: ${app}\n`,
    env: { FIXTURE_MODE: 'clash' },
    commands: ['run', 'info', 'mcp'],
    expected: EXIT.config,
    message: /claimed by both/,
  },
  {
    name: 'a bad include filter',
    yaml: `${BASE}application_path: ${app}\ninclude: {tools: ['(unclosed']}\n`,
    commands: ['run', 'info', 'mcp'],
    expected: EXIT.config,
    message: /include/,
  },
  {
    name: 'an unknown provider',
    yaml: BASE.replace('llm:\n', 'llm:\n  provider: no-such-provider\n'),
    // only a run builds a provider: fisk info describes a file it could not run, fisk mcp calls no model
    commands: ['run'],
    expected: EXIT.config,
    message: /no-such-provider/,
  },
  {
    name: 'a missing configuration file',
    yaml: undefined,
    commands: ['run', 'info', 'mcp', 'knowledge', 'session', 'memory'],
    expected: EXIT.config,
    message: /agent\.yaml/,
  },
  {
    name: 'a relative FISK_AI_STORE_DIR',
    yaml: `${BASE}harness:\n  memory: {enabled: true}\n  knowledge: {enabled: true, paths: [docs]}\n`,
    env: { FISK_AI_STORE_DIR: 'relative/dir' },
    commands: ['run', 'info', 'mcp', 'knowledge', 'memory'],
    expected: EXIT.usage,
    message: /FISK_AI_STORE_DIR/,
  },
  {
    name: 'a missing knowledge embeddings key variable',
    yaml: `${BASE.replace('mcp: {}', 'mcp: {builtins: [knowledge_search]}')}harness:\n  knowledge:\n    enabled: true\n    paths: [docs]\n    embeddings: {base_url: "http://127.0.0.1:9", model: toy, api_key_env: NOT_SET_FOR_FISK_TESTS}\n`,
    commands: ['run', 'mcp', 'knowledge'],
    expected: EXIT.config,
    message: /NOT_SET_FOR_FISK_TESTS/,
  },
];

async function statusOf(failure: Failure, command: Command): Promise<{ code: number; err: string }> {
  const dir = join(root, `case-${cases++}`);
  mkdirSync(join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'docs/a.md'), '# A\n\nText.\n');
  if (failure.yaml !== undefined) writeFileSync(join(dir, 'agent.yaml'), failure.yaml);
  const io = captureIo({ PATH: process.env['PATH'], HOME: dir, XDG_STATE_HOME: join(dir, 'state'), FIXTURE_MODE: '', ...failure.env }, dir);
  const code = await runCli(ARGS[command], io);
  return { code, err: io.stderr() };
}

describe('the same failure exits with the same status from every command', () => {
  for (const failure of FAILURES) {
    it(failure.name, async () => {
      const seen: Record<string, number> = {};
      for (const command of failure.commands) {
        const r = await statusOf(failure, command);
        seen[command] = r.code;
        expect(r.err, `${command}: ${r.err}`).toMatch(failure.message);
      }
      expect(seen).toEqual(Object.fromEntries(failure.commands.map((c) => [c, failure.expected])));
    });
  }
});
