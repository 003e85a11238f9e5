/**
 * Writes a run's journal entries as session records through a `runstate` journal. The host
 * creates the journal and writes its meta record; the loop appends everything after it.
 */
import { assistantBody, deferralBody, grantBody, terminalBody, toolResultBody } from '../runstate/builders.js';
import { appendAllNext, appendNext } from '../runstate/store.js';
import type { DelegatedPayload, Journal } from '../runstate/index.js';
import type { RecordBody } from '../runstate/records.js';
import type { DelegatedUsage } from '../toolkit/tool.js';
import type { JournalEntry, RunJournal } from './journal.js';

function delegatedPayload(d: DelegatedUsage): DelegatedPayload {
  return { input_tokens: d.input, output_tokens: d.output, ...(d.countsBudget ? { counts_budget: true } : {}) };
}

/** The record an entry is stored as; none for an aborted or crashed run's terminal entry. */
function recordBody(entry: JournalEntry): RecordBody | undefined {
  switch (entry.type) {
    case 'assistant':
      return assistantBody(entry);
    case 'tool_result':
      return toolResultBody(entry.result, {
        remote: entry.kind === 'remote',
        ...(entry.gate === undefined
          ? {}
          : {
              gate: {
                outcome: entry.gate.outcome,
                trigger: entry.gate.trigger,
                command_line: entry.gate.commandLine,
                ...(entry.gate.reason === undefined ? {} : { reason: entry.gate.reason }),
              },
            }),
        ...(entry.delegated === undefined ? {} : { delegated: delegatedPayload(entry.delegated) }),
      });
    case 'tool_deferred':
      return deferralBody(entry.toolUseId, entry.name, entry.reason);
    case 'grant':
      return grantBody(entry.tool, entry.toolUseId);
    case 'terminal':
      switch (entry.status) {
        case 'aborted':
        case 'crashed':
          return undefined;
        case 'completed':
        case 'suspended':
        case 'error':
        case 'budget':
        case 'max_iterations':
          return terminalBody(entry.status, entry.message);
        default: {
          const never: never = entry.status;
          throw new TypeError(`unknown run status ${String(never)}`);
        }
      }
    default: {
      const never: never = entry;
      throw new TypeError(`unknown journal entry ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Adapts a session journal. An aborted or crashed run writes no terminal record: it stays open, so
 * it can be resumed, which is what a cancelled or crashed run needs. Ownership is the store's:
 * before each tool runs, the loop asks whether another runner has claimed the run since.
 */
export function sessionJournal(journal: Journal): RunJournal {
  return {
    // the store's own check: nobody else appended since our last record (fails closed)
    stillOwned: () => journal.isHeld(),
    async append(entry: JournalEntry): Promise<void> {
      const body = recordBody(entry);
      if (body !== undefined) await appendNext(journal, body);
    },
    // one durable step: the file backend writes the records' lines at once under one fsync
    async appendAll(entries: readonly JournalEntry[]): Promise<void> {
      const bodies = entries.map(recordBody).filter((body): body is RecordBody => body !== undefined);
      if (bodies.length > 0) await appendAllNext(journal, bodies);
    },
  };
}
