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

/** Where `fisk run --http-debug` writes, relative to the working directory. */
export const HTTP_DEBUG_FILE = 'http-debug.log';
