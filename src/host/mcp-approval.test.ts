/**
 * Approval for tools imported from an MCP server nobody here wrote
 * (`@modelcontextprotocol/server-filesystem` over stdio): `write_file` goes through the same gate,
 * question, grants and journal as a gated command, a run with nobody to ask declines it and
 * nothing is written, and the tools the server marks read-only run unasked under `auto`.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import type { AgentEvent, QuestionEvent } from '../agent/events.js';
import { NO_OPERATOR_REASON } from '../agent/confirm-gate.js';
import { parseConfigForMode } from '../config/index.js';
import { FILESYSTEM } from '../mcp/client/test-support.js';
import { loadRun } from '../runstate/index.js';
import { memorySessionStore } from '../runstate/memory-store.js';
import type { SessionStore } from '../runstate/store.js';
import { startRun } from './run.js';
import type { RunHandle } from './run.js';
import { openRuntime } from './runtime.js';
import type { RunRuntime } from './runtime.js';

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'fisk-mcp-approval-')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runtimeWith(provider: ScriptedProvider, confirm: string | undefined, sessions?: SessionStore): Promise<RunRuntime> {
  const confirmLine = confirm === undefined ? '' : `    confirm: ${confirm}\n`;
  const yaml = `identity: files\nsystem_prompt: You edit files.\nllm:\n  model: m\nmcp_clients:\n  - name: fs\n    command: ${process.execPath}\n    args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(dir)}]\n${confirmLine}`;
  const config = parseConfigForMode({ text: yaml }, 'run');
  const runtime = await openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider });
  return sessions === undefined ? runtime : { ...runtime, sessions };
}

function collect(handle: RunHandle): AgentEvent[] {
  const seen: AgentEvent[] = [];
  handle.subscribe({ emit: (e) => void seen.push(e) });
  return seen;
}

async function firstQuestion(handle: RunHandle): Promise<QuestionEvent> {
  return new Promise((resolve) => {
    handle.subscribe({ emit: (e) => (e.type === 'question' && e.id !== undefined ? resolve(e) : undefined) });
  });
}

const writeCall = (file: string, id = 'w1'): ReturnType<typeof toolUseResponse> =>
  toolUseResponse([{ id, name: 'write_file', input: { path: join(dir, file), content: 'written by the model' } }]);

describe('write_file of server-filesystem behind the confirm gate', () => {
  it('is declined with nobody to ask: the file is not written, the model is told, the journal holds the refusal', async () => {
    const store = memorySessionStore();
    const provider = new ScriptedProvider([writeCall('nobody.txt'), textResponse('could not write')]);
    const runtime = await runtimeWith(provider, undefined, store);
    try {
      const handle = await startRun(runtime, { prompt: 'write it', checkpoint: { runId: 'nobody-1' } });
      const events = collect(handle);
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      expect(existsSync(join(dir, 'nobody.txt'))).toBe(false);
      expect(JSON.stringify(provider.requests[1]?.messages)).toContain(JSON.stringify(NO_OPERATOR_REASON).slice(1, -1));
      expect(events.some((e) => e.type === 'question')).toBe(false);
      const stored = await loadRun(store, 'nobody-1');
      const result = stored.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result' && b.toolUseId === 'w1');
      expect(result).toMatchObject({ type: 'tool_result', content: expect.stringContaining('"allowed":false') as unknown });
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('asks, naming why it is gated, and writes the file once approved; the result is journaled', async () => {
    const store = memorySessionStore();
    const provider = new ScriptedProvider([writeCall('approved.txt'), textResponse('written')]);
    const runtime = await runtimeWith(provider, undefined, store);
    try {
      const handle = await startRun(runtime, { prompt: 'write it', checkpoint: { runId: 'approved-1' } }, { prompter: 'handle' });
      const question = await firstQuestion(handle);
      expect(question).toMatchObject({ kind: 'approval', tool: 'write_file', trigger: 'confirm: auto (destructiveHint)' });
      expect(question.text).toContain('write_file');
      expect(existsSync(join(dir, 'approved.txt'))).toBe(false);
      expect(handle.answer(question.id ?? '', 'once')).toBe(true);
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      expect(readFileSync(join(dir, 'approved.txt'), 'utf8')).toBe('written by the model');
      const stored = await loadRun(store, 'approved-1');
      const result = stored.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result' && b.toolUseId === 'w1');
      expect(result).toMatchObject({ content: expect.stringContaining('<mcp-data server="fs" tool="write_file">') as unknown });
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('journals a standing grant, so the second write of the run is not asked about', async () => {
    const store = memorySessionStore();
    const provider = new ScriptedProvider([writeCall('first.txt', 'a1'), writeCall('second.txt', 'a2'), textResponse('both')]);
    const runtime = await runtimeWith(provider, undefined, store);
    try {
      const handle = await startRun(runtime, { prompt: 'write twice', checkpoint: { runId: 'grant-1' } }, { prompter: 'handle' });
      const events = collect(handle);
      expect(handle.answer((await firstQuestion(handle)).id ?? '', 'always')).toBe(true);
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      expect(events.filter((e) => e.type === 'question')).toHaveLength(1);
      expect(existsSync(join(dir, 'second.txt'))).toBe(true);
      expect((await loadRun(store, 'grant-1')).grants.map((g) => g.tool)).toEqual(['write_file']);
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('lets a tool the server marks readOnlyHint run unasked under auto, with nobody present', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'the notes');
    const provider = new ScriptedProvider([
      toolUseResponse([{ id: 'r1', name: 'read_text_file', input: { path: join(dir, 'notes.txt') } }]),
      textResponse('read'),
    ]);
    const runtime = await runtimeWith(provider, undefined);
    try {
      const handle = await startRun(runtime, { prompt: 'read it' });
      const events = collect(handle);
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      expect(JSON.stringify(provider.requests[1]?.messages)).toContain('the notes');
      expect(events.filter((e) => e.type === 'warning').map((e) => (e.type === 'warning' ? e.text : ''))).not.toContain(
        expect.stringContaining('read_text_file'),
      );
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('runs write_file unasked with confirm: never, and gates only the matching names with a pattern list', async () => {
    const never = new ScriptedProvider([writeCall('never.txt'), textResponse('ok')]);
    const runtime = await runtimeWith(never, 'never');
    try {
      const tools = runtime.imported.sources()[0]?.tools ?? [];
      expect(tools.every((t) => t.capabilities.gate?.gated === false)).toBe(true);
      const handle = await startRun(runtime, { prompt: 'write it' });
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      expect(existsSync(join(dir, 'never.txt'))).toBe(true);
    } finally {
      await runtime.close();
    }
    const listed = await runtimeWith(new ScriptedProvider([]), '["^read_text_file$", "^move_"]');
    try {
      const gates = Object.fromEntries(
        (listed.imported.sources()[0]?.tools ?? []).map((t) => [t.name, t.capabilities.gate?.trigger ?? 'ungated']),
      );
      expect(gates['read_text_file']).toBe('confirm: ^read_text_file$');
      expect(gates['move_file']).toBe('confirm: ^move_');
      expect(gates['write_file']).toBe('ungated');
    } finally {
      await listed.close();
    }
  }, 60_000);
});
