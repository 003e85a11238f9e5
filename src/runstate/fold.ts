/**
 * The fold: a run rebuilt from its records alone. Conversation, counters, resume position,
 * grants and pending work are all derived here and never stored beside the journal, so they
 * cannot drift from what happened. Pure: no I/O, no clock.
 */
import type { Message, ToolResultBlock, ToolUseBlock, Usage } from '../llm/types.js';
import { checkAppend } from './check-append.js';
import { RunStateError } from './errors.js';
import { decodeMessage, decodeToolResult } from './message-codec.js';
import { FORMAT_VERSION, isKnownRecord, recordKind } from './records.js';
import type { ApprovalDecisionValue, Fingerprint, GatePayload, StoredRecord, TerminalPayload, TerminalReason } from './records.js';

/** One call of the pending batch, by what the journal says about it. */
export type PendingCall =
  | { readonly state: 'answered'; readonly call: ToolUseBlock; readonly result: ToolResultBlock }
  | { readonly state: 'deferred'; readonly call: ToolUseBlock; readonly note: string | undefined }
  /** `reason`: what the operator said to do instead, with a decline given out of band. */
  | {
      readonly state: 'unanswered';
      readonly call: ToolUseBlock;
      readonly approval: ApprovalDecisionValue | undefined;
      readonly reason?: string;
    };

/**
 * A trailing model turn with calls not yet answered. A resume runs only the `unanswered` calls
 * (a crash may repeat at most the one whose result was not recorded), never dispatches a
 * `deferred` one, and then commits the turn with every result.
 */
export interface PendingBatch {
  readonly iteration: number;
  /** The assistant message whose calls these are. */
  readonly message: Message;
  /** In the order the model made the calls. */
  readonly calls: readonly PendingCall[];
}

/** Counters derived from the records. */
export interface RunCounters {
  readonly llmCalls: number;
  readonly toolCalls: number;
  readonly remoteToolCalls: number;
  /** Tokens by tier; `thinking` is not journaled and folds as 0. */
  readonly usage: Usage;
  /** What the peers given tasks reported spending; `counted` is the part that counts against the budget. */
  readonly delegated: DelegatedCounters;
}

/** Delegated tokens folded from the tool results that carry them. */
export interface DelegatedCounters {
  readonly input: number;
  readonly output: number;
  readonly counted: number;
}

/** A standing approval restored from the journal. */
export interface RestoredGrant {
  readonly tool: string;
  readonly toolUseId: string;
}

/** A run as the fold rebuilt it. */
export interface FoldedRun {
  readonly runId: string;
  readonly created: string;
  readonly fingerprint: Fingerprint;
  readonly prompt: string;
  readonly interactive: boolean;
  /** The committed conversation, starting with the prompt as the first user message. */
  readonly messages: readonly Message[];
  readonly pending: PendingBatch | undefined;
  readonly counters: RunCounters;
  /** The loop index the next model call takes (last assistant iteration + 1). */
  readonly nextIteration: number;
  readonly lastSeq: number;
  /** The last terminal reason, or `open` when a model call or follow-up came after it (or none was written). */
  readonly status: TerminalReason | 'open';
  readonly terminal: TerminalPayload | undefined;
  readonly grants: readonly RestoredGrant[];
  /** The newest memory scope snapshot, if any. */
  readonly memoryScope: Readonly<Record<string, number>> | undefined;
  /** How the confirm gate decided each gated call that has a result, by call id. */
  readonly gates: ReadonlyMap<string, GatePayload>;
}

interface OpenTurn {
  readonly iteration: number;
  readonly message: Message;
  readonly calls: readonly ToolUseBlock[];
  readonly results: Map<string, ToolResultBlock>;
  readonly deferred: Map<string, string | undefined>;
  readonly approvals: Map<string, { readonly decision: ApprovalDecisionValue; readonly reason?: string }>;
}

function corrupt(detail: string): RunStateError {
  return new RunStateError('corrupt', `corrupt record sequence: ${detail}`);
}

/** Appends user content, merging into a trailing user message: the API refuses two in a row. */
function pushUser(messages: Message[], content: Message['content']): void {
  if (content.length === 0) return;
  const last = messages[messages.length - 1];
  if (last?.role === 'user') {
    messages[messages.length - 1] = { role: 'user', content: [...last.content, ...content] };
  } else {
    messages.push({ role: 'user', content });
  }
}

function commit(messages: Message[], turn: OpenTurn): void {
  messages.push(turn.message);
  // results in journal order, which the Map preserves
  pushUser(messages, [...turn.results.values()]);
}

/**
 * Rebuilds a run. Refuses (RunStateError): a first record that is not meta (`corrupt`), any
 * version but this build's in either direction (`version`), sequences that do not strictly
 * increase, a second meta, a result or deferral that answers no call of the open turn, a second
 * answer to one call, and an unknown record not flagged optional (`corrupt`).
 *
 * Claims are completely inert: a claim lands between a turn and its results on resume, and
 * touching the turn there would commit it early and lose the pending batch.
 */
export function fold(records: readonly StoredRecord[]): FoldedRun {
  const first = records[0];
  if (first === undefined || !isKnownRecord(first) || !('meta' in first)) throw corrupt('first record is not meta');
  const meta = first.meta;
  if (meta.version !== FORMAT_VERSION) {
    throw new RunStateError('version', `unsupported snapshot version: snapshot version ${meta.version}, supported ${FORMAT_VERSION}`);
  }
  const messages: Message[] = [];
  if (meta.prompt !== undefined && meta.prompt !== '') messages.push({ role: 'user', content: [{ type: 'text', text: meta.prompt }] });

  let turn: OpenTurn | undefined;
  let lastSeq = first.seq;
  let llmCalls = 0;
  let toolCalls = 0;
  let remoteToolCalls = 0;
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, thinking: 0 };
  const delegated = { input: 0, output: 0, counted: 0 };
  let nextIteration = 0;
  let terminal: TerminalPayload | undefined;
  const grants: RestoredGrant[] = [];
  let memoryScope: Readonly<Record<string, number>> | undefined;
  const gates = new Map<string, GatePayload>();

  for (let i = 1; i < records.length; i++) {
    const record = records[i] as StoredRecord;
    // the append rule, applied on read: only the next sequence follows; a gap is refused too
    if (checkAppend(record.seq, lastSeq) !== 'next')
      throw corrupt(`seq ${record.seq} does not follow ${lastSeq}${record.seq > lastSeq ? ' (a gap: records are missing)' : ''}`);
    lastSeq = record.seq;
    if (!isKnownRecord(record)) continue; // optional by construction: skipping is the conservative reading
    const kind = recordKind(record);
    switch (kind) {
      case 'meta':
        throw corrupt(`seq ${record.seq}: a second meta record`);
      case 'assistant': {
        const assistant = (record as Extract<StoredRecord, { assistant: unknown }>).assistant;
        if (turn !== undefined) commit(messages, turn);
        const message = decodeMessage(assistant.message);
        turn = {
          iteration: assistant.iteration,
          message,
          calls: message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use'),
          results: new Map(),
          deferred: new Map(),
          approvals: new Map(),
        };
        llmCalls++;
        usage.input += assistant.in_tokens;
        usage.output += assistant.out_tokens;
        usage.cacheRead += assistant.cache_read_tokens ?? 0;
        usage.cacheWrite += assistant.cache_create_tokens ?? 0;
        nextIteration = assistant.iteration + 1;
        terminal = undefined;
        break;
      }
      case 'user': {
        const user = (record as Extract<StoredRecord, { user: unknown }>).user;
        if (turn !== undefined) commit(messages, turn);
        turn = undefined;
        pushUser(messages, decodeMessage(user.message).content);
        terminal = undefined;
        break;
      }
      case 'tool_result': {
        const toolResult = (record as Extract<StoredRecord, { tool_result: unknown }>).tool_result;
        if (turn === undefined) throw corrupt(`seq ${record.seq}: tool result ${toolResult.tool_use_id} before any assistant turn`);
        if (!turn.calls.some((c) => c.id === toolResult.tool_use_id))
          throw corrupt(`seq ${record.seq}: tool result ${toolResult.tool_use_id} answers no call of the open turn`);
        if (turn.results.has(toolResult.tool_use_id)) throw corrupt(`seq ${record.seq}: a second result for ${toolResult.tool_use_id}`);
        turn.results.set(toolResult.tool_use_id, decodeToolResult({ ...toolResult.result, tool_use_id: toolResult.tool_use_id }));
        if (toolResult.gate !== undefined) gates.set(toolResult.tool_use_id, toolResult.gate);
        toolCalls++;
        if (toolResult.remote === true) remoteToolCalls++;
        if (toolResult.delegated !== undefined) {
          delegated.input += toolResult.delegated.input_tokens;
          delegated.output += toolResult.delegated.output_tokens;
          if (toolResult.delegated.counts_budget === true)
            delegated.counted += toolResult.delegated.input_tokens + toolResult.delegated.output_tokens;
        }
        break;
      }
      case 'deferral': {
        const deferral = (record as Extract<StoredRecord, { deferral: unknown }>).deferral;
        if (turn === undefined || !turn.calls.some((c) => c.id === deferral.tool_use_id)) {
          throw corrupt(`seq ${record.seq}: deferral of ${deferral.tool_use_id} which is no call of the open turn`);
        }
        if (turn.results.has(deferral.tool_use_id))
          throw corrupt(`seq ${record.seq}: deferral of ${deferral.tool_use_id} after its result`);
        turn.deferred.set(deferral.tool_use_id, deferral.note);
        break;
      }
      case 'approval': {
        const ap = (record as Extract<StoredRecord, { approval: unknown }>).approval;
        // an approval for anything but a waiting call is simply spent
        if (turn !== undefined && !turn.results.has(ap.tool_use_id))
          turn.approvals.set(ap.tool_use_id, { decision: ap.decision, ...(ap.reason === undefined ? {} : { reason: ap.reason }) });
        break;
      }
      case 'grant': {
        const grant = (record as Extract<StoredRecord, { grant: unknown }>).grant;
        if (!grants.some((x) => x.tool === grant.tool)) grants.push({ tool: grant.tool, toolUseId: grant.tool_use_id });
        break;
      }
      case 'claim':
        break;
      case 'terminal':
        terminal = (record as Extract<StoredRecord, { terminal: unknown }>).terminal;
        break;
      case 'memory_scope':
        memoryScope = (record as Extract<StoredRecord, { memory_scope: unknown }>).memory_scope.revisions;
        break;
      default: {
        const never: never = kind;
        throw corrupt(`unknown record kind ${String(never)}`);
      }
    }
  }

  let pending: PendingBatch | undefined;
  if (turn !== undefined) {
    const open = turn;
    if (open.calls.every((c) => open.results.has(c.id))) {
      commit(messages, open);
    } else {
      pending = {
        iteration: open.iteration,
        message: open.message,
        calls: open.calls.map((call): PendingCall => {
          const result = open.results.get(call.id);
          if (result !== undefined) return { state: 'answered', call, result };
          if (open.deferred.has(call.id)) return { state: 'deferred', call, note: open.deferred.get(call.id) };
          const ap = open.approvals.get(call.id);
          return { state: 'unanswered', call, approval: ap?.decision, ...(ap?.reason === undefined ? {} : { reason: ap.reason }) };
        }),
      };
    }
  }

  return {
    runId: meta.run_id,
    created: meta.created,
    fingerprint: meta.fingerprint,
    prompt: meta.prompt ?? '',
    interactive: meta.interactive === true,
    messages,
    pending,
    counters: { llmCalls, toolCalls, remoteToolCalls, usage, delegated },
    nextIteration,
    lastSeq,
    status: terminal?.reason ?? 'open',
    terminal,
    grants,
    memoryScope,
    gates,
  };
}
