/**
 * Takeover: when a second claimant takes a journaled run over (claimRun on the same store) while
 * the run waits on an approval inside a tool call, or while it waits on the model between calls,
 * the displaced worker starts no tool.
 */
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { connectNats } from '../../src/conns/nats-connect.js';
import type { NatsConn } from '../../src/conns/nats-connect.js';
import { jetstreamSessionStore } from '../../src/runstate/jetstream/store.js';
import type { SessionStore } from '../../src/runstate/store.js';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import { errorOf } from '../../src/agent/outcome.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { startRun } from '../../src/host/index.js';
import type { RunHandle } from '../../src/host/index.js';
import { claimRun, loadRun } from '../../src/runstate/index.js';
import { recordingTool, scriptedRuntime } from './support.js';

let nats: NatsServer;
let conn: NatsConn;
let jsm: JetStreamManager;
let home: string;
let streams = 0;

beforeAll(async () => {
  nats = await startNatsServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-takeover-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  conn = await connectNats('js', { env: { HOME: home, XDG_CONFIG_HOME: home } });
  jsm = await jetstreamManager(conn.connection);
}, 20_000);

afterAll(async () => {
  await conn.connection.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

/** A fresh session store on its own stream: a store shared by workers on several machines. */
async function sharedStore(): Promise<SessionStore> {
  const name = `RUNS${streams++}`;
  await jsm.streams.add({
    name,
    subjects: [`runs${streams}.>`],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
  });
  return jetstreamSessionStore(conn, name);
}

/** Resolves with the first question event's id. */
function nextQuestion(handle: RunHandle): Promise<string> {
  return new Promise((resolve) => {
    const off = handle.subscribe({
      emit: (e: AgentEvent) => {
        if (e.type === 'question' && e.id !== undefined) {
          resolve(e.id);
          queueMicrotask(() => off());
        }
      },
    });
  });
}

describe('a displaced worker starts no tool', () => {
  it('runs the approved tool when nobody claims the run (the control)', async () => {
    const store = await sharedStore();
    const tool = recordingTool('deploy', { gated: true });
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { note: 'now' } }]), textResponse('deployed')]);
    const runtime = await scriptedRuntime(provider, [tool], store);
    const handle = await startRun(runtime, { prompt: 'deploy', checkpoint: { runId: 'control-1' } }, { prompter: 'handle' });
    expect(handle.answer(await nextQuestion(handle), 'once')).toBe(true);
    const outcome = await handle.outcome;
    await handle.close();
    await runtime.close();
    expect(outcome.status).toBe('completed');
    expect(tool.runs).toHaveLength(1);
  });

  it('claimed while a call waits for approval: the approved tool never starts', async () => {
    const store = await sharedStore();
    const tool = recordingTool('deploy', { gated: true });
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { note: 'now' } }]), textResponse('deployed')]);
    const runtime = await scriptedRuntime(provider, [tool], store);
    const handle = await startRun(runtime, { prompt: 'deploy', checkpoint: { runId: 'takeover-1' } }, { prompter: 'handle' });
    const question = await nextQuestion(handle);

    const other = await claimRun(store, 'takeover-1', 'second-worker');
    expect(handle.answer(question, 'once')).toBe(true);
    const outcome = await handle.outcome;
    await handle.close();

    expect(tool.runs).toEqual([]);
    expect(outcome.status).toBe('error');
    expect(errorOf(outcome)?.code).toBe('taken_over');
    // the new holder still holds the run, and can append to it
    expect(await other.journal.isHeld()).toBe(true);
    await other.journal.close();
    expect((await loadRun(store, 'takeover-1')).lastSeq).toBeGreaterThan(0);
    await runtime.close();
  });

  it('claimed while the run waits on the model: the tool the model then asks for never starts', async () => {
    const store = await sharedStore();
    const tool = recordingTool('deploy');
    let claimed = false;
    const provider = new ScriptedProvider([
      async () => {
        const other = await claimRun(store, 'takeover-2', 'second-worker');
        await other.journal.close();
        claimed = true;
        return toolUseResponse([{ name: 'deploy', input: { note: 'now' } }]);
      },
      textResponse('deployed'),
    ]);
    const runtime = await scriptedRuntime(provider, [tool], store);
    const handle = await startRun(runtime, { prompt: 'deploy', checkpoint: { runId: 'takeover-2' } });
    const outcome = await handle.outcome;
    await handle.close();
    await runtime.close();

    expect(tool.runs).toEqual([]);
    expect(claimed).toBe(true);
    expect(outcome.status).toBe('error');
    expect(errorOf(outcome)?.message).toMatch(/taken over|locked|another/);
    expect(provider.requests).toHaveLength(1);
  });
});
