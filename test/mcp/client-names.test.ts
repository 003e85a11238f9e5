/**
 * Names valid in MCP but refused by the model APIs, driven through the built CLI: a server's
 * tools named `<prefix>_<tool>`, a dotted, spaced or long name rewritten (and shown in
 * `fisk info`), a tool without a description described by its name, and two servers listing the
 * same names: `fisk run` refuses naming `prefix`, `fisk info` warns and lists everything else.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { ensureBuilt, ROOT, runFisk } from '../cli/support.js';

const HOSTILE = fileURLToPath(new URL('../fixtures/hostile-mcp-server.mjs', import.meta.url));
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let fake: FakeModelServer;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-names-'));
  mkdirSync(join(dir, 'one'));
  mkdirSync(join(dir, 'two'));
  writeFileSync(join(dir, 'two', 'only-in-two.txt'), 'second root\n');
}, 180_000);
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

function agent(name: string, servers: string): string {
  const cwd = join(dir, name);
  mkdirSync(cwd, { recursive: true });
  writeFileSync(
    join(cwd, 'agent.yaml'),
    `identity: ${name}\nsystem_prompt: You use tools.\nllm: {model: claude-fake-1}\nmcp_clients:\n${servers}`,
  );
  return cwd;
}

const run = (cwd: string, prompt: string): ReturnType<typeof runFisk> =>
  runFisk(['run', '--base-url', fake.url, '--api-key', 'k', prompt], cwd);

interface SentTool {
  readonly name: string;
  readonly description: string;
}

function sentTools(request: number): SentTool[] {
  return ((fake.requests[request]?.body as { tools?: SentTool[] } | undefined)?.tools ?? []).filter((t) => t.name !== 'tool_search');
}

describe('a server whose tool names the model APIs refuse', () => {
  const servers = `  - name: hostile
    command: ${process.execPath}
    args: [${HOSTILE}, names]
    prefix: h
    confirm: never
`;

  it('is used under rewritten, prefixed names, and a call reaches the server under its own name', async () => {
    const cwd = agent('dotted', servers);
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'h_read_file', input: {} }]), anthropicText('read it'));
    const r = await run(cwd, 'read the file');
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('read it');
    const names = sentTools(0).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['h_read_file', 'h_say_hi', 'h_quiet', 'h_echo']));
    const long = names.find((n) => n.startsWith('h_long_'));
    expect(long).toMatch(/^h_long_x+_[0-9a-f]{8}$/);
    expect(long).toHaveLength(64);
    for (const n of names) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(sentTools(0).find((t) => t.name === 'h_quiet')?.description).toBe('quiet');
    expect(r.stderr).toMatch(/warning: MCP server "hostile": tool "quiet" has no description, so the model is told only its name/);
    // the server answers with the name it was called by
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('read.file {}');
  });

  it("is listed by fisk info with each rewritten name beside the server's own", async () => {
    const cwd = agent('dotted-info', servers);
    const r = await runFisk(['info'], cwd);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Renamed for the model \(5; calls use the name where the tool comes from\)/);
    expect(r.stdout).toMatch(/h_read_file\s+mcp:hostile\s+"read\.file"/);
    expect(r.stdout).toMatch(/h_say_hi\s+mcp:hostile\s+"say hi"/);
    expect(r.stdout).toMatch(/h_quiet\s+mcp:hostile\s+"quiet"/);
    expect(r.stderr).toMatch(/tool "quiet" has no description/);
    const json = JSON.parse((await runFisk(['info', '--json'], cwd)).stdout) as { tools: { name: string; remoteName?: string }[] };
    expect(json.tools.find((t) => t.name === 'h_read_file')?.remoteName).toBe('read.file');
  });
});

describe('two servers listing the same tool names (the reference filesystem server, twice)', () => {
  const twice = (prefix: string): string => `  - name: fs1
    command: ${process.execPath}
    args: [${FILESYSTEM}, ${join(dir, 'one')}]
  - name: fs2
    command: ${process.execPath}
    args: [${FILESYSTEM}, ${join(dir, 'two')}]
${prefix}`;

  it('refuses fisk run with a message that names prefix, before the model is called', async () => {
    const cwd = agent('twice', twice(''));
    const r = await run(cwd, 'list the files');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /MCP server "fs2" lists \w+, a name MCP server "fs1" already has; set mcp_clients\[1\]\.prefix \(prefix: fs2 names its tools fs2_<tool>\)/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('warns in fisk info and lists everything else', async () => {
    const cwd = agent('twice-info', twice(''));
    const r = await runFisk(['info'], cwd);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: mcp_clients\[1\]\.prefix: tool "read_file" of MCP server "fs2" is not listed: the name is already taken by MCP server "fs1"; fisk run refuses to start/,
    );
    expect(r.stdout).toMatch(/read_file\s+mcp:fs1/);
    expect(r.stdout).not.toMatch(/mcp:fs2/);
  });

  it('runs with a prefix on the second, each call reaching its own server', async () => {
    const cwd = agent('twice-prefixed', twice('    prefix: fs2\n'));
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'fs2_list_directory', input: { path: join(dir, 'two') } }]),
      anthropicText('listed'),
    );
    const r = await run(cwd, 'list the second root');
    expect(r.code).toBe(0);
    const names = sentTools(0).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'fs2_read_file', 'fs2_list_directory']));
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('only-in-two.txt');
  });
});
