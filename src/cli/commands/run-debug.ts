/**
 * The debug files `fisk run` and `fisk web` can write: `--trace <file>` (JSON lines of every model exchange and a
 * closing summary) and `--http-debug` (every request and response body). Both hold the whole
 * conversation, so both are created 0600 and never overwrite an existing file.
 */
import { resolve } from 'node:path';
import type { RunOutcome } from '../../agent/outcome.js';
import type { Config } from '../../config/index.js';
import type { FetchMiddleware } from '../../llm/http.js';
import { openHttpDebugLog } from '../../llm/http-debug.js';
import type { HttpDebugLog } from '../../llm/http-debug.js';
import { openTraceFile } from '../../llm/trace.js';
import type { TraceFile } from '../../llm/trace.js';
import { CliError } from '../errors.js';
import { HTTP_DEBUG_FILE } from './flags.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { packageVersion } from '../version.js';
import { envFlag } from '../process.js';

/** Where `--http-debug` writes, relative to the working directory. */
export { HTTP_DEBUG_FILE } from './flags.js';

/** The open debug files: their fetch hooks, the closing summary, and the close. */
export interface RunDebugFiles {
  readonly middleware: FetchMiddleware[];
  summary(outcome: RunOutcome): void;
  close(): void;
}

/** Opens what the flags ask for. Throws `CliError` naming the flag when a file cannot be created. */
export function openRunDebugFiles(
  config: Config,
  flags: { readonly trace?: string; readonly httpDebug?: boolean },
  io: Io,
  iteration: () => number | undefined,
): RunDebugFiles {
  const middleware: FetchMiddleware[] = [];
  const closers: (() => void)[] = [];
  let trace: TraceFile | undefined;
  const close = (): void => {
    for (const c of closers.reverse()) c();
  };
  try {
    if (flags.trace !== undefined) {
      try {
        trace = openTraceFile(resolve(io.cwd, flags.trace));
      } catch (err) {
        const why =
          (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it already exists (a trace is never overwritten)' : (err as Error).message;
        throw new CliError(`--trace ${flags.trace}: cannot create the trace file: ${why}; name a new file`, EXIT.usage);
      }
      const traceFile = trace;
      closers.push(() => traceFile.close());
      traceFile.write({
        type: 'session',
        time: new Date().toISOString(),
        model: config.llm.model,
        config: config.source,
        version: packageVersion(),
      });
      middleware.push(traceFile.middleware({ iteration }));
    }
    if (flags.httpDebug === true || envFlag(io.env, 'HTTP_DEBUG')) {
      let log: HttpDebugLog;
      try {
        log = openHttpDebugLog(resolve(io.cwd, HTTP_DEBUG_FILE));
      } catch (err) {
        throw new CliError(`--http-debug: cannot create ${HTTP_DEBUG_FILE}: ${(err as Error).message}`);
      }
      closers.push(() => log.close());
      middleware.push(log.middleware);
      println(
        io.err,
        `Writing model API request and response bodies to ${HTTP_DEBUG_FILE} (mode 0600; it holds the whole conversation, do not share it)`,
      );
    }
  } catch (err) {
    close();
    throw err;
  }
  return {
    middleware,
    summary(outcome: RunOutcome): void {
      trace?.write({
        type: 'summary',
        time: new Date().toISOString(),
        suspended: outcome.status === 'suspended',
        llm_calls: outcome.counters.llmCalls,
        tool_calls: outcome.counters.toolCalls,
        remote_tool_calls: outcome.counters.remoteToolCalls,
        tool_calls_by_kind: outcome.counters.toolCallsByKind,
        input_tokens: outcome.counters.usage.input,
        output_tokens: outcome.counters.usage.output,
        cache_read_tokens: outcome.counters.usage.cacheRead,
        cache_create_tokens: outcome.counters.usage.cacheWrite,
        duration_ms: outcome.durationMs,
      });
    },
    close,
  };
}
