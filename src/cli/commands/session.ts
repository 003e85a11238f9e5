/**
 * `fisk session ls|show|rm|answer`: inspect and manage checkpointed runs. Everything printed from
 * a journal is stripped of control sequences first: a stored conversation holds model and tool
 * text, which is untrusted.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { AgentEvent } from '../../agent/events.js';
import { inputObject, oneLine, stripControl } from '../../agent/sanitize.js';
import type { BackendChoice } from '../../config/index.js';
import { ConnError } from '../../conns/errors.js';
import type { Message } from '../../llm/types.js';
import { RunStateError } from '../../runstate/errors.js';
import type { FoldedRun, RunSummary, SessionStore } from '../../runstate/index.js';
import { declineReasonOf, declineWith } from '../../toolkit/tool.js';
import { CliError, UsageError } from '../errors.js';
import { exitFor } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { renderEvent } from '../../render/line-renderer.js';

interface SessionFlags {
  readonly config?: string;
  readonly stateDir?: string;
}

const FILE_DEFAULT: BackendChoice = { backend: 'file', options: '{}' };

/** The configuration read when `--config` is not given and the file is there, as `fisk run` reads it. */
const DEFAULT_CONFIG = 'agent.yaml';

/** The session stores and journal folding, loaded only when a subcommand runs. */
const runstate = () => import('../../runstate/index.js');

/** Opens the store the flags name, runs `fn` on it, and closes what was opened for it. */
async function withStore<T>(io: Io, flags: SessionFlags, fn: (store: SessionStore) => Promise<T>): Promise<T> {
  const { openConfiguredSessionStore } = await runstate();
  let sessions = FILE_DEFAULT;
  let natsContext: string | undefined;
  // a relative sessions directory resolves against the directory holding agent.yaml
  let base = io.cwd;
  // as fisk run does: --config, else ./agent.yaml when there is one, else the default file backend
  const path =
    flags.config !== undefined
      ? resolve(io.cwd, flags.config)
      : existsSync(resolve(io.cwd, DEFAULT_CONFIG))
        ? resolve(io.cwd, DEFAULT_CONFIG)
        : undefined;
  if (path !== undefined) {
    const { parseConfigForMode } = await import('../../config/index.js');
    const config = parseConfigForMode({ path }, 'session');
    sessions = config.harness.sessions;
    natsContext = config.natsContext;
    base = config.baseDir;
  }
  let opened: Awaited<ReturnType<typeof openConfiguredSessionStore>>;
  try {
    opened = await openConfiguredSessionStore(sessions, natsContext, {
      env: io.env,
      cwd: base,
      connectionName: 'fisk-ai session',
      ...(flags.stateDir !== undefined ? { stateDir: flags.stateDir } : {}),
    });
  } catch (err) {
    throw asCliError(err);
  }
  try {
    return await fn(opened.store);
  } catch (err) {
    throw asCliError(err);
  } finally {
    await opened.close();
  }
}

function asCliError(err: unknown): unknown {
  if (err instanceof RunStateError || err instanceof ConnError) return new CliError(err.message, exitFor(err), { cause: err });
  return err;
}

function truncate(text: string, max: number): string {
  const clean = oneLine(stripControl(text));
  const chars = [...clean];
  return chars.length <= max ? clean : `${chars.slice(0, max).join('')}...`;
}

function when(d: Date): string {
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/** The `ls` table, widest cell per column, sorted as the store returned it (newest first). */
export function formatRunTable(rows: readonly RunSummary[]): string[] {
  const cells = [
    ['ID', 'Model', 'Status', 'Updated', 'Prompt'],
    ...rows.map((r) =>
      r.status === 'corrupt'
        ? [r.runId, '', 'corrupt', when(r.updated), truncate(r.problem, 120)]
        : [r.runId, truncate(r.model, 40), r.status, when(r.updated), truncate(r.prompt, 50)],
    ),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => (c[i] as string).length)));
  return cells.map((c) =>
    c
      .map((cell, i) => (i < 4 ? cell.padEnd(widths[i] as number) : cell))
      .join('  ')
      .trimEnd(),
  );
}

/** The `show` summary block. */
export function formatRunSummary(run: FoldedRun): string[] {
  const c = run.counters;
  const out = [
    `Session ${run.runId}`,
    '',
    `  Status      ${run.status}${run.terminal?.message !== undefined ? ` (${truncate(run.terminal.message, 120)})` : ''}`,
    `  Model       ${truncate(run.fingerprint.model ?? '', 80)}`,
    `  Created     ${run.created}`,
    `  Next iter   ${run.nextIteration}`,
    `  LLM calls   ${c.llmCalls}`,
    `  Tool calls  ${c.toolCalls} (remote ${c.remoteToolCalls})`,
    `  Tokens      ${c.usage.input} in / ${c.usage.output} out${c.usage.cacheRead > 0 ? ` (${c.usage.cacheRead} cached)` : ''}`,
  ];
  if (run.grants.length > 0) out.push(`  Grants      ${run.grants.map((g) => truncate(g.tool, 60)).join(', ')}`);
  if (run.pending !== undefined) {
    out.push('  Pending     an in-flight tool batch will resume first:');
    for (const p of run.pending.calls) {
      const what =
        p.state === 'deferred'
          ? `deferred${p.note !== undefined ? `: ${truncate(p.note, 80)}` : ''}; answer with fisk session answer ${run.runId} ${p.call.id} RESULT`
          : p.state;
      out.push(`              ${p.call.id} ${truncate(p.call.name, 60)} (${what})`);
    }
  }
  out.push('', 'Prompt', `  ${truncate(run.prompt, 200)}`);
  return out;
}

/** The events a stored message replays as, in the shapes a live run emits. */
function messageEvents(message: Message, results: boolean): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        events.push({ type: 'text', text: block.text, final: false });
        break;
      case 'thinking':
        if (block.text !== '') events.push({ type: 'thinking', text: block.text });
        break;
      case 'tool_use':
        events.push({ type: 'tool_call', id: block.id, name: block.name, input: inputObject(block.input) });
        break;
      case 'tool_result':
        if (results)
          events.push({ type: 'tool_result', call_id: block.toolUseId, is_error: block.isError === true, output: block.content });
        break;
      case 'provider':
        break;
      default: {
        const never: never = block;
        throw new TypeError(`unknown block ${JSON.stringify(never)}`);
      }
    }
  }
  return events;
}

/**
 * A stored conversation as the events a live run emits, each with the role of the message it came
 * from, so another surface can replay it through its own renderer. Results of a pending batch
 * answered before the run stopped follow the batch.
 */
export function transcriptEvents(run: FoldedRun): { readonly role: Message['role']; readonly event: AgentEvent }[] {
  const out: { readonly role: Message['role']; readonly event: AgentEvent }[] = [];
  const messages = run.pending === undefined ? run.messages : [...run.messages, run.pending.message];
  for (const message of messages) for (const event of messageEvents(message, true)) out.push({ role: message.role, event });
  for (const p of run.pending?.calls ?? []) {
    if (p.state === 'answered')
      out.push({
        role: 'user',
        event: { type: 'tool_result', call_id: p.call.id, is_error: p.result.isError === true, output: p.result.content },
      });
  }
  return out;
}

/**
 * The conversation as lines: operator text quoted with `> `, model prose as written, and calls,
 * results and (with `thinking`) reasoning through the same line renderer a live run uses.
 */
export function formatTranscript(run: FoldedRun, opts: { readonly thinking: boolean }): string[] {
  const out: string[] = [];
  const messages = run.pending === undefined ? run.messages : [...run.messages, run.pending.message];
  for (const message of messages) {
    for (const event of messageEvents(message, true)) {
      if (event.type === 'thinking' && !opts.thinking) continue;
      if (event.type === 'text') {
        const prefix = message.role === 'user' ? '> ' : '';
        out.push(
          ...stripControl(event.text)
            .replace(/\n+$/, '')
            .split('\n')
            .map((l) => `${prefix}${l}`),
        );
        continue;
      }
      out.push(...renderEvent(event, { toolOutput: true, verbose: true }));
    }
    out.push('');
  }
  if (run.pending !== undefined) {
    for (const call of run.pending.calls) {
      if (call.state === 'answered')
        out.push(
          ...renderEvent(
            { type: 'tool_result', call_id: call.call.id, is_error: call.result.isError === true, output: call.result.content },
            { toolOutput: true, verbose: true },
          ),
        );
      else out.push(`   (${call.call.id}: ${call.state})`);
    }
  }
  return out;
}

function flagsOf(cmd: Command): SessionFlags {
  return cmd.optsWithGlobals<SessionFlags>();
}

export function registerSession(program: Command, io: Io): void {
  const session = program
    .command('session')
    .description('list, show, answer and remove checkpointed runs')
    .option('--config <file>', 'use the session backend this configuration names (harness.sessions; default ./agent.yaml when it exists)')
    .option('--state-dir <dir>', 'the file backend directory (default $XDG_STATE_HOME/fisk-ai/runs)');

  session
    .command('ls')
    .alias('list')
    .description('list checkpointed runs, newest first')
    .action(async (_opts: unknown, cmd: Command) => {
      const flags = flagsOf(cmd);
      const rows = await withStore(io, flags, (store) => store.list());
      if (rows.length === 0) {
        // a note, not a row: a script reading the table sees none
        println(
          io.err,
          flags.config === undefined && !existsSync(resolve(io.cwd, DEFAULT_CONFIG))
            ? 'No checkpointed sessions (file backend; pass --config if your sessions are in a configured backend)'
            : 'No checkpointed sessions',
        );
        return;
      }
      for (const line of formatRunTable(rows)) println(io.out, line);
    });

  session
    .command('show')
    .alias('view')
    .description('show a run: status, counters and any pending calls')
    .argument('<id>', 'the run id')
    .option('--transcript', 'also print the conversation')
    .option('--thinking', 'include the model reasoning in the transcript')
    .action(async (id: string, opts: { transcript?: boolean; thinking?: boolean }, cmd: Command) => {
      const { loadRun } = await runstate();
      const run = await withStore(io, flagsOf(cmd), (store) => loadRun(store, id));
      for (const line of formatRunSummary(run)) println(io.out, line);
      if (opts.transcript === true) {
        println(io.out, '\n--- transcript ---\n');
        for (const line of formatTranscript(run, { thinking: opts.thinking === true })) println(io.out, line);
      }
    });

  session
    .command('rm')
    .alias('delete')
    .description('remove a run and its journal')
    .argument('<id>', 'the run id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await withStore(io, flagsOf(cmd), async (store) => {
        // removed without reading it first, so a corrupt journal or orphaned records go too;
        // an unknown id is still an error, not a silent success
        if (!(await store.remove(id))) throw new RunStateError('not_found', `run not found: ${JSON.stringify(id)} in ${store.location}`);
      });
      println(io.out, `Removed session ${id}`);
    });

  session
    .command('answer')
    .description(
      'supply the result of a deferred tool call, or approve or decline a gated call the run has not run yet; the next resume continues from it',
    )
    .argument('<id>', 'the run id')
    .argument('<call-id>', 'the call, as `show` lists it')
    .argument('[result]', 'the result text the model receives (for a deferred call)')
    .option('--error', 'mark the result as a failed call')
    .option('--approve', 'approve the gated call instead of giving a result')
    .option('--decline', 'decline the gated call instead of giving a result')
    .option('--reason <text>', 'with --decline: what the agent should do instead, sent to the model with the refusal')
    .action(async (id: string, callId: string, result: string | undefined, opts: AnswerOptions, cmd: Command) => {
      const decision = decisionOf(opts, result);
      if (decision !== undefined) {
        const { answerApproval } = await runstate();
        const reason = opts.reason === undefined ? undefined : declineReasonOf(declineWith(opts.reason));
        if (opts.reason !== undefined && reason === undefined)
          throw new UsageError('--reason is empty: give what the agent should do instead, or leave --reason out for a plain decline');
        await withStore(io, flagsOf(cmd), (store) => answerApproval(store, id, callId, decision, reason === undefined ? {} : { reason }));
        println(
          io.out,
          `${decision === 'approve' ? 'Approved' : 'Declined'} call ${callId} of session ${id}${reason === undefined ? '' : ', with the reason'}`,
        );
      } else {
        const { answerDeferred } = await runstate();
        await withStore(io, flagsOf(cmd), (store) => answerDeferred(store, id, callId, result ?? '', { isError: opts.error === true }));
        println(io.out, `Answered call ${callId} of session ${id}`);
      }
      println(io.err, `resume with: fisk run --resume ${id}`);
    });
}

interface AnswerOptions {
  readonly error?: boolean;
  readonly approve?: boolean;
  readonly decline?: boolean;
  readonly reason?: string;
}

/** The decision `answer`'s flags ask for, or undefined for a result; refuses flags that do not go together. */
function decisionOf(opts: AnswerOptions, result: string | undefined): 'approve' | 'decline' | undefined {
  if (opts.approve === true && opts.decline === true) throw new UsageError('--approve and --decline cannot be used together');
  if (opts.reason !== undefined && opts.decline !== true) {
    throw new UsageError(
      opts.approve === true ? '--reason goes with --decline: an approval carries no reason' : '--reason goes with --decline',
    );
  }
  const decision = opts.approve === true ? 'approve' : opts.decline === true ? 'decline' : undefined;
  if (decision === undefined) {
    if (result === undefined)
      throw new UsageError('answer needs the RESULT text of a deferred call, or --approve or --decline for a gated one');
    return undefined;
  }
  if (result !== undefined) throw new UsageError(`--${decision} takes no RESULT: drop "${result}", or use --reason with --decline`);
  if (opts.error === true) throw new UsageError(`--error marks a result, and --${decision} gives none`);
  return decision;
}
