/**
 * Journaled runs for a host: stamp the configuration a run writes under, start a checkpointed run,
 * and take a stored run back for a resume, returning the `runAgent` options that continue it.
 * Nothing here prints; the host presents refusals and replays the conversation itself.
 */
import type { Config } from '../config/index.js';
import { userBody } from '../runstate/builders.js';
import { RunStateError } from '../runstate/errors.js';
import { computeFingerprint, resumeGate } from '../runstate/fingerprint.js';
import { beginRun, claimRun, loadRun } from '../runstate/run-ops.js';
import { appendNext } from '../runstate/store.js';
import type { Fingerprint, FingerprintChange, FoldedRun, Journal, SessionStore } from '../runstate/index.js';
import type { SandboxStampInput } from '../runstate/sandbox-stamp.js';
import type { ToolSet, ToolSetSource } from '../toolkit/tool.js';
import { fingerprintDefinitions } from '../toolkit/tool-search.js';
import type { Message, ToolResultBlock } from '../llm/types.js';
import type { PendingToolBatch, RunOptions } from './run-agent.js';
import { sessionJournal } from './runstate-journal.js';
import { systemBlocks } from './system-prompt.js';

/**
 * The fingerprint of the run `runAgent` would make with this configuration, tool set and system
 * notes: the same system segments and tool definitions the loop sends on its first call, with
 * every definition the harness search defers counted whether or not it is loaded yet.
 */
export function runFingerprint(config: Config, tools: ToolSetSource, systemNotes: readonly string[]): Fingerprint {
  return computeFingerprint({
    provider: config.llm.provider,
    model: config.llm.model,
    system: systemBlocks(config.systemPrompt, config.harness.humanInTheLoop, systemNotes),
    tools: fingerprintDefinitions(tools.current()),
    thinking: config.llm.thinking,
    maxTokens: config.llm.budget.maxTokens,
    maxIterations: config.llm.budget.maxIterations,
    sandbox: sandboxOfTools(tools.current()),
  });
}

/** Every tool that starts a process, with what its sandbox lets it reach (`null`: it runs unsandboxed). */
function sandboxOfTools(set: ToolSet): SandboxStampInput {
  const out: Record<string, SandboxStampInput[string]> = {};
  for (const t of set.tools) {
    const s = t.capabilities.sandbox;
    if (s === undefined) continue;
    out[t.name] = s === null ? null : { network: s.network, writable: s.writable, hide: s.hide };
  }
  return out;
}

/** A journaled run ready for `runAgent`: spread `options` into the run's options; close `journal` when it ends. */
export interface Checkpoint {
  readonly runId: string;
  readonly journal: Journal;
  readonly options: Pick<RunOptions, 'journal'> &
    Partial<Pick<RunOptions, 'history' | 'startIteration' | 'budgetFrom' | 'grants' | 'delegatedBefore'>>;
}

/**
 * Creates a new journaled run and writes its meta record (fingerprint and prompt). `runId`
 * defaults to a generated time-sortable id; a taken or invalid id is refused by the store. The
 * meta record is made durable while the run starts (see `beginRun`): the journal waits for it
 * before anything else is appended, so a failure to store it ends the run at its first record.
 */
export async function startCheckpoint(
  store: SessionStore,
  m: { readonly runId?: string; readonly fingerprint: Fingerprint; readonly prompt: string },
): Promise<Checkpoint> {
  const journal = await beginRun(store, m);
  return { runId: journal.runId, journal, options: { journal: sessionJournal(journal) } };
}

/** A resumed run: the checkpoint to continue, the stored run as folded, and the fingerprint changes `force` let through. */
export interface ResumedCheckpoint extends Checkpoint {
  readonly run: FoldedRun;
  readonly changes: readonly FingerprintChange[];
}

/**
 * Takes a stored run back to continue it. Refusals come before the claim, so they cost no lock:
 * a completed run; a fingerprint that changed (every changed field named; `force` overrides all
 * but the provider); and a batch still waiting for a deferred call's answer. Then a claim is
 * appended before anything else and the run is re-read under it. A run that stopped inside a tool
 * batch (a crash, or a suspend mid-batch) resumes by running only the calls with no recorded
 * result, so no journaled model call is repeated and at most the one call in flight runs twice.
 * Restored grants are dropped when a forced resume changed the tool set. Throws `RunStateError`.
 */
export async function resumeCheckpoint(
  store: SessionStore,
  runId: string,
  opts: { readonly fingerprint: Fingerprint; readonly force: boolean; readonly followUp?: string },
): Promise<ResumedCheckpoint> {
  const refuse = opts.followUp === undefined ? refuseUnresumable : refuseUncontinuable;
  const stored = await loadRun(store, runId);
  refuse(stored);
  const decision = resumeGate(stored.fingerprint, opts.fingerprint, { force: opts.force, runId });
  const claimed = await claimRun(store, runId);
  const journal = claimed.journal;
  let run = claimed.run;
  try {
    refuse(run);
    if (opts.followUp !== undefined) {
      // the further prompt is journaled under the claim, so the conversation it continues is this one
      await appendNext(journal, userBody({ role: 'user', content: [{ type: 'text', text: opts.followUp }] }));
      run = await loadRun(store, runId);
    }
  } catch (err) {
    await journal.close();
    throw err;
  }
  const standing = decision.grantsSurvive ? run.grants.map((g) => g.tool) : [];
  // approvals given out of band while the run was stopped, spent by the gate on the call they name
  const oneShot = run.pending?.calls.flatMap((c) => (c.state === 'unanswered' && c.approval === 'approve' ? [c.call.id] : [])) ?? [];
  const declines = run.pending?.calls.flatMap((c) => (c.state === 'unanswered' && c.approval === 'decline' ? [c] : [])) ?? [];
  const declined = declines.map((c) => c.call.id);
  const declineReasons = Object.fromEntries(declines.flatMap((c) => (c.reason === undefined ? [] : [[c.call.id, c.reason]])));
  const reasons = Object.keys(declineReasons).length > 0 ? { declineReasons } : {};
  const grants =
    standing.length > 0 || oneShot.length > 0 || declined.length > 0
      ? {
          grants: {
            ...(standing.length > 0 ? { standing } : {}),
            ...(oneShot.length > 0 ? { oneShot } : {}),
            ...(declined.length > 0 ? { declined, ...reasons } : {}),
          },
        }
      : {};
  const pendingBatch = pendingOf(run);
  return {
    runId,
    journal,
    run,
    changes: decision.changes,
    options: {
      journal: sessionJournal(journal),
      history: run.messages,
      startIteration: run.nextIteration,
      budgetFrom: promptIteration(run.messages),
      delegatedBefore: run.counters.delegated,
      ...grants,
      ...(pendingBatch === undefined ? {} : { pendingBatch }),
    },
  };
}

/**
 * The iteration the last operator prompt started at (each model call is one assistant message),
 * so a resume continues that prompt's iteration budget rather than the whole conversation's.
 */
function promptIteration(messages: readonly Message[]): number {
  let assistants = 0;
  let at = 0;
  for (const m of messages) {
    if (m.role === 'assistant') assistants++;
    else if (m.content.some((b) => b.type === 'text')) at = assistants;
  }
  return at;
}

/** The stored batch to finish first: its turn and the results already recorded. */
function pendingOf(run: FoldedRun): PendingToolBatch | undefined {
  if (run.pending === undefined) return undefined;
  const results = new Map<string, ToolResultBlock>();
  for (const c of run.pending.calls) if (c.state === 'answered') results.set(c.call.id, c.result);
  return { message: run.pending.message, results };
}

/**
 * A stored conversation takes a further prompt once its last turn is finished: completed, or
 * stopped at a boundary. A turn with calls still unanswered would be cut in half by a prompt.
 */
function refuseUncontinuable(run: FoldedRun): void {
  if (run.pending !== undefined) {
    const waiting = run.pending.calls.filter((c) => c.state === 'deferred');
    throw new RunStateError(
      'not_resumable',
      waiting.length > 0
        ? `run ${JSON.stringify(run.runId)} is waiting for ${waiting.map((c) => `${c.call.name} (${c.call.id})`).join(', ')} to answer, so it cannot take a further prompt yet; supply the answer with fisk session answer ${run.runId} <call id> <result>, then resume it`
        : `run ${JSON.stringify(run.runId)} stopped inside a tool batch, so it cannot take a further prompt yet; resume it first with fisk run --resume ${run.runId}`,
    );
  }
}

function refuseUnresumable(run: FoldedRun): void {
  if (run.status === 'completed') {
    throw new RunStateError(
      'not_resumable',
      `run ${JSON.stringify(run.runId)} already completed, so there is nothing to resume (fisk session show ${run.runId} --transcript prints its conversation)`,
    );
  }
  // a deferred call is never dispatched again: its turn finishes only when an answer is supplied
  const waiting = run.pending?.calls.filter((c) => c.state === 'deferred') ?? [];
  if (waiting.length > 0) {
    throw new RunStateError(
      'not_resumable',
      `run ${JSON.stringify(run.runId)} is waiting for ${waiting.map((c) => `${c.call.name} (${c.call.id})`).join(', ')} to answer; supply the answer with fisk session answer ${run.runId} <call id> <result>, then resume`,
    );
  }
}
