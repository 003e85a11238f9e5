/** The flags of `fisk run` and what a test or an embedding host can replace in it. */
import type { FetchLike } from '../../llm/http.js';
import type { Provider } from '../../llm/provider.js';
import type { Prompter } from '../../toolkit/tool.js';

export interface RunFlags {
  readonly config: string;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly toolOutput?: boolean;
  readonly color: boolean;
  readonly verbose?: boolean;
  readonly httpDebug?: boolean;
  readonly tui: boolean;
  readonly trace?: string;
  readonly checkpoint?: boolean;
  readonly name?: string;
  readonly resume?: string;
  readonly force?: boolean;
  readonly stateDir?: string;
  readonly natsContext?: string;
  readonly identity?: string;
  readonly telemetry?: boolean;
  readonly model?: string;
}

/**
 * What a test (or an embedding host) can replace. Everything defaults to the real process: stdin,
 * SIGINT/SIGTERM, the global fetch.
 */
export interface RunCommandDeps {
  /**
   * Where answers to questions are read from; `process.stdin` by default. When it is not a
   * terminal and no query is given, it is read to its end as the prompt.
   */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** A prompter to use instead of the line prompter. */
  readonly prompter?: Prompter;
  /** Installs an interrupt handler and returns its removal; SIGINT and SIGTERM by default. */
  readonly onInterrupt?: (handler: () => void) => () => void;
  /** The fetch the provider's HTTP hooks wrap. */
  readonly fetch?: FetchLike;
  /** A provider to use instead of the one `llm.provider` names. */
  readonly provider?: Provider;
}
