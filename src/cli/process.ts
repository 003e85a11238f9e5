/**
 * What every command shares about the process it runs in: boolean environment switches, the
 * interrupt signals, and the exit status for each way a run ends.
 */
import type { RunStatus } from '../agent/status.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { println } from './io.js';

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

/**
 * Resolves once the operator asks a server to stop. The first SIGINT or SIGTERM (or whatever
 * `onInterrupt` installs on) starts a graceful stop; a second exits at once, because a stop that
 * hangs must still be escapable.
 */
export function stopRequested(io: Io, onInterrupt: (handler: () => void) => () => void = processInterrupt): Promise<void> {
  return new Promise((resolveStop) => {
    let asked = false;
    onInterrupt(() => {
      if (asked) {
        println(io.err, 'stopping now');
        process.exit(EXIT.aborted);
      }
      asked = true;
      println(io.err, 'stopping (press Ctrl-C again to exit at once)');
      resolveStop();
    });
  });
}

/**
 * A TCP port to listen on, from a flag or variable named `from`: 1 to 65535, and 0 (any free
 * port) only where `anyFree` allows it.
 */
export function parsePort(text: string, from: string, opts: { readonly anyFree?: boolean } = {}): number {
  const trimmed = text.trim();
  const n = /^[0-9]{1,5}$/.test(trimmed) ? Number(trimmed) : NaN;
  const low = opts.anyFree === true ? 0 : 1;
  if (!Number.isInteger(n) || n < low || n > 65535) {
    throw new UsageError(
      `${from} must be a TCP port from 1 to 65535${opts.anyFree === true ? ' (or 0 for any free port)' : ''}, got ${JSON.stringify(text)}`,
    );
  }
  return n;
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
