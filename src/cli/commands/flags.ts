/**
 * Flag texts and checks the light command definitions need before any command code is loaded, so
 * registering every command stays cheap and `fisk --help` starts fast.
 */

/** The help text of `--no-telemetry` on every command that can export. */
export const NO_TELEMETRY_HELP = 'export no telemetry, whatever agent.yaml says (env FISK_AI_TELEMETRY=off)';

/** Whether `fisk run` was asked to run on a remote agent rather than host one here. */
export function isRemoteRun(flags: { readonly natsContext?: string; readonly identity?: string }): boolean {
  return flags.natsContext !== undefined || flags.identity !== undefined;
}

/** Where `--http-debug` writes, relative to the working directory. */
export const HTTP_DEBUG_FILE = 'http-debug.log';

/** The help texts of the debug flags `fisk run` and `fisk web` share. */
export const HTTP_DEBUG_HELP = `write every model API request and response body to ./${HTTP_DEBUG_FILE} (env HTTP_DEBUG)`;
export const TRACE_HELP = 'write a JSON-lines trace of every model request and response to a new file (mode 0600)';

const MODEL_FLAGS = [
  { key: 'model', flag: '--model', fallback: 'llm.model' },
  { key: 'apiKey', flag: '--api-key', fallback: "the provider's key variable" },
  { key: 'baseUrl', flag: '--base-url', fallback: "the provider's URL variable or llm.base_url" },
] as const;

/**
 * Why a model flag given as empty text is refused, or `undefined`. An empty `--model`,
 * `--api-key` or `--base-url` would otherwise fall back to its default without a word, which is
 * rarely what a script that passed an unset variable meant.
 */
export function emptyModelFlag(flags: {
  readonly model?: string;
  readonly apiKey?: string;
  readonly baseUrl?: string;
}): string | undefined {
  for (const f of MODEL_FLAGS) {
    const v = flags[f.key];
    if (v !== undefined && v.trim() === '') return `${f.flag} is empty; give it a value, or leave it out to use ${f.fallback}`;
  }
  return undefined;
}
