/**
 * What every command shares about the process it runs in: boolean environment switches, the
 * interrupt signals, and the exit status for each way a run ends.
 */
import type { RunStatus } from '../agent/status.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import type { Io } from './io.js';

/** Whether an environment switch is on: set, and not empty, `0` or `false`. */
export function envFlag(env: Io['env'], name: string): boolean {
  const v = env[name];
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** Calls `handler` on SIGINT and SIGTERM; returns the removal. */
export function processInterrupt(handler: () => void): () => void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** The exit status for each way a run ends, local or remote. */
export function exitCodeFor(status: RunStatus): ExitCode {
  switch (status) {
    case 'completed':
    case 'suspended':
      return EXIT.ok;
    case 'budget':
      return EXIT.budget;
    case 'max_iterations':
      return EXIT.maxIterations;
    case 'aborted':
      return EXIT.aborted;
    case 'error':
      return EXIT.error;
    case 'crashed':
      return EXIT.crashed;
    default: {
      const never: never = status;
      return never;
    }
  }
}
