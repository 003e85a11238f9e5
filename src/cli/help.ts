/**
 * How `fisk --help` and every subcommand's help read: wrapped to the terminal's width (80 columns
 * when not a terminal, so piped help is stable), and a subcommand's help also lists the options of
 * the command group it belongs to (`fisk knowledge search --help` shows `--config`).
 */
import type { Command } from 'commander';
import type { Io } from './io.js';

/** Columns to wrap help at when the stream is not a terminal. */
export const DEFAULT_HELP_WIDTH = 80;

/** The width help written to `stream` is wrapped at. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const columns = stream.columns;
  return stream.isTTY === true && typeof columns === 'number' && columns > 20 ? columns : DEFAULT_HELP_WIDTH;
}

/** Applies the help settings to `program` and every command under it; call it once all are registered. */
export function applyHelpSettings(program: Command, io: Io): void {
  const out = io.out as Io['out'] & { columns?: number };
  const err = io.err as Io['err'] & { columns?: number };
  const walk = (cmd: Command, path: string): void => {
    cmd.configureHelp({ ...cmd.configureHelp(), showGlobalOptions: true });
    cmd.configureOutput({ getOutHelpWidth: () => helpWidth(out), getErrHelpWidth: () => helpWidth(err) });
    // a mistyped flag or command gets its error and the "did you mean" line, then one line that
    // says where the options are: a whole help text after it buries the suggestion
    cmd.showHelpAfterError(`(run '${path} --help' to see what it takes)`);
    for (const sub of cmd.commands) walk(sub, `${path} ${sub.name()}`);
  };
  walk(program, program.name());
}
