/**
 * Journaled runs for a host: stamp the configuration a run writes under, start a checkpointed run,
 * and take a stored run back for a resume, returning the `runAgent` options that continue it.
 * Nothing here prints; the host presents refusals and replays the conversation itself.
 */
import type { Config } from '../config/index.js';
import { claimRun, computeFingerprint, loadRun, resumeGate, RunStateError, startRun } from '../runstate/index.js';
import type { Fingerprint, FingerprintChange, FoldedRun, Journal, SessionStore } from '../runstate/index.js';
import type { ToolSetSource } from '../toolkit/tool.js';
import type { RunOptions } from './run-agent.js';
import { sessionJournal } from './runstate-journal.js';
import { systemBlocks } from './system-prompt.js';

/**
 * The fingerprint of the run `runAgent` would make with this configuration, tool set and system
 * notes: the same system segments and tool definitions the loop sends on its first call.
 */
export function runFingerprint(config: Config, tools: ToolSetSource, systemNotes: readonly string[]): Fingerprint {
  return computeFingerprint({
    provider: config.llm.provider,
    model: config.llm.model,
    system: systemBlocks(config.systemPrompt, config.harness.humanInTheLoop, systemNotes),
    tools: tools.current().definitions(),
    thinking: config.llm.thinking,
    maxTokens: config.llm.budget.maxTokens,
    maxIterations: config.llm.budget.maxIterations,
  });
}

/** A journaled run ready for `runAgent`: spread `options` into the run's options; close `journal` when it ends. */
export interface Checkpoint {
  readonly runId: string;
  readonly journal: Journal;
  readonly options: Pick<RunOptions, 'journal'> & Partial<Pick<RunOptions, 'history' | 'startIteration' | 'grants'>>;
}

/**
 * Creates a new journaled run and writes its meta record (fingerprint and prompt). `runId`
 * defaults to a generated time-sortable id; a taken or invalid id is refused by the store.
 */
export async function startCheckpoint(
  store: SessionStore,
  m: { readonly runId?: string; readonly fingerprint: Fingerprint; readonly prompt: string },
): Promise<Checkpoint> {
  const journal = await startRun(store, m);
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
 * but the provider); and a run that stopped inside a tool batch, since the loop cannot yet run a
 * pending batch and re-asking the model would repeat a journaled call. Then a claim is appended
 * before anything else and the run is re-read under it. Restored grants are dropped when a forced
 * resume changed the tool set. Throws `RunStateError`.
 */
export async function resumeCheckpoint(
  store: SessionStore,
  runId: string,
  opts: { readonly fingerprint: Fingerprint; readonly force: boolean },
): Promise<ResumedCheckpoint> {
  const stored = await loadRun(store, runId);
  refuseUnresumable(stored);
  const decision = resumeGate(stored.fingerprint, opts.fingerprint, { force: opts.force, runId });
  const { journal, run } = await claimRun(store, runId);
  try {
    refuseUnresumable(run);
  } catch (err) {
    await journal.close();
    throw err;
  }
  const standing = decision.grantsSurvive ? run.grants.map((g) => g.tool) : [];
  return {
    runId,
    journal,
    run,
    changes: decision.changes,
    options: {
      journal: sessionJournal(journal),
      history: run.messages,
      startIteration: run.nextIteration,
      ...(standing.length > 0 ? { grants: { standing } } : {}),
    },
  };
}

function refuseUnresumable(run: FoldedRun): void {
  if (run.status === 'completed') {
    throw new RunStateError('config', `run ${JSON.stringify(run.runId)} already completed; there is nothing to resume`);
  }
  if (run.pending !== undefined) {
    throw new RunStateError(
      'config',
      `run ${JSON.stringify(run.runId)} stopped inside a tool batch (iteration ${run.pending.iteration}), and this build cannot yet run a pending batch on resume; answer deferred calls with fisk session answer, or start a new run`,
    );
  }
}
