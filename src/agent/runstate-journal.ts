/**
 * Writes a run's journal entries as session records through a `runstate` journal. The host
 * creates the journal and writes its meta record; the loop appends everything after it.
 */
import { assistantBody, deferralBody, grantBody, terminalBody, toolResultBody } from '../runstate/builders.js';
import { appendNext } from '../runstate/store.js';
import type { DelegatedPayload, Journal } from '../runstate/index.js';
import type { DelegatedUsage } from '../toolkit/tool.js';
import type { JournalEntry, RunJournal } from './journal.js';

function delegatedPayload(d: DelegatedUsage): DelegatedPayload {
  return { input_tokens: d.input, output_tokens: d.output, ...(d.countsBudget ? { counts_budget: true } : {}) };
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
      switch (entry.type) {
        case 'assistant':
          await appendNext(journal, assistantBody(entry));
          return;
        case 'tool_result':
          await appendNext(
            journal,
            toolResultBody(entry.result, {
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
            }),
          );
          return;
        case 'tool_deferred':
          await appendNext(journal, deferralBody(entry.toolUseId, entry.name, entry.reason));
          return;
        case 'grant':
          await appendNext(journal, grantBody(entry.tool, entry.toolUseId));
          return;
        case 'terminal':
          switch (entry.status) {
            case 'aborted':
            case 'crashed':
              return;
            case 'completed':
            case 'suspended':
            case 'error':
            case 'budget':
            case 'max_iterations':
              await appendNext(journal, terminalBody(entry.status, entry.message));
              return;
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
    },
  };
}
