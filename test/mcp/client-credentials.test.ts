/**
 * A credential given to one MCP server reaches that server only: it is absent from the
 * environment of every application command and every other MCP server, read from /proc as a
 * hostile process would, and a hostile server that reads it anyway cannot pass it to the model.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { openRuntime, startRun } from '../../src/host/index.js';
import type { RunRuntime } from '../../src/host/index.js';
import type { ToolResultBlock } from '../../src/llm/types.js';
import { runningWithCommandLine, until } from '../support/processes.js';

const APP = fileURLToPath(new URL('../fixtures/fisk-app.mjs', import.meta.url));
const HOSTILE = fileURLToPath(new URL('../fixtures/hostile-mcp-server.mjs', import.meta.url));
const SECRET = 'ghp-only-for-gh-0123456789abcdef';

function environ(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter((p) => p !== '');
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

function pidIn(file: string): number {
  return Number(readFileSync(file, 'utf8').trim());
}

let dir = '';
let runtime: RunRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

async function open(model: ScriptedProvider): Promise<{ gh: number; other: number }> {
  dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-creds-'));
  const ghPid = join(dir, 'gh.pid');
  const otherPid = join(dir, 'other.pid');
  const yaml = `identity: creds
application_path: ${APP}
system_prompt: You look around.
llm: {model: scripted}
mcp_clients:
  - name: gh
    command: ${process.execPath}
    args: [${HOSTILE}, snoop, ${ghPid}]
    env: {GITHUB_TOKEN: "\${GH_PAT}", HOSTILE_ECHO: "\${GH_PAT}"}
    include: {tools: ["^(own_environ|confide)$"]}
    confirm: never
  - name: other
    command: ${process.execPath}
    args: [${HOSTILE}, snoop, ${otherPid}]
    include: {tools: ["^read_environ$"]}
    confirm: never
`;
  const config = parseConfigForMode({ text: yaml }, 'run');
  // the same token exported a second time under another name is the same credential
  const env = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    GH_PAT: SECRET,
    GITHUB_COPY: SECRET,
    HARMLESS_SETTING: 'visible-to-tools',
  };
  runtime = await openRuntime(config, 'run', { env, provider: model });
  await until(() => existsSync(ghPid) && existsSync(otherPid), 'both servers to write their pids');
  return { gh: pidIn(ghPid), other: pidIn(otherPid) };
}

function toolResults(model: ScriptedProvider, request: number): string[] {
  const blocks = (model.requests[request]?.messages ?? [])
    .flatMap((m) => m.content)
    .filter((b): b is ToolResultBlock => b.type === 'tool_result');
  return blocks.map((b) => JSON.stringify(b.content));
}

describe('a credential given to one MCP server', () => {
  it("is in that server's environment under the name its entry gives, and in no other server's", async () => {
    const pids = await open(new ScriptedProvider([]));
    const gh = environ(pids.gh);
    expect(gh['GITHUB_TOKEN']).toBe(SECRET);
    // the server gets the value under the name it asked for, not the operator's variables
    expect(gh['GH_PAT']).toBeUndefined();
    expect(gh['GITHUB_COPY']).toBeUndefined();
    expect(gh['HARMLESS_SETTING']).toBe('visible-to-tools');

    const other = environ(pids.other);
    expect(Object.values(other).some((v) => v.includes(SECRET))).toBe(false);
    expect(other['HARMLESS_SETTING']).toBe('visible-to-tools');
    expect(other['PATH']).toBe(process.env['PATH']);
  });

  it("is absent from a running application command's environment", async () => {
    const model = new ScriptedProvider([toolUseResponse([{ name: 'sleep', input: { seconds: '60' } }]), textResponse('done')]);
    await open(model);
    if (runtime === undefined) throw new Error('no runtime');
    const handle = await startRun(runtime, { prompt: 'wait a while' });
    let command: number[] = [];
    await until(() => (command = runningWithCommandLine(`${APP} sleep`)).length > 0, 'the sleep command to start');
    const env = environ(command[0] ?? 0);
    handle.cancel();
    await handle.outcome;
    await handle.close();
    expect(Object.values(env).some((v) => v.includes(SECRET))).toBe(false);
    expect(env['GH_PAT']).toBeUndefined();
    expect(env['HARMLESS_SETTING']).toBe('visible-to-tools');
  });

  it('never reaches the model, even from a server or a command that reads it', async () => {
    const model = new ScriptedProvider([]);
    const pids = await open(model);
    model.push(
      toolUseResponse([
        { name: 'env', input: {} },
        { name: 'own_environ', input: {} },
        { name: 'confide', input: {} },
        { name: 'read_environ', input: { pid: String(pids.gh) } },
      ]),
      textResponse('seen'),
    );
    if (runtime === undefined) throw new Error('no runtime');
    const handle = await startRun(runtime, { prompt: 'look everywhere' });
    const outcome = await handle.outcome;
    await handle.close();
    expect(outcome.status).toBe('completed');
    // the server put the value it was given into a description: the model is sent it replaced
    const definitions = JSON.stringify(model.requests[0]?.tools ?? []);
    expect(definitions).toContain('Knows [GH_PAT-REDACTED]');
    const results = toolResults(model, 1);
    expect(results).toHaveLength(4);
    const [appEnv, ghOwn, ghConfides, otherReads] = results;
    expect(appEnv).toContain('HARMLESS_SETTING');
    expect(appEnv).not.toContain('GH_PAT');
    expect(ghOwn).toContain('GITHUB_TOKEN');
    expect(ghConfides).toContain('[GH_PAT-REDACTED]');
    // the other server read the first one's environment from /proc; what it answers is scrubbed
    expect(otherReads).toContain('GITHUB_TOKEN=[GH_PAT-REDACTED]');
    for (const result of results) expect(result).not.toContain(SECRET);
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);
  });
});
