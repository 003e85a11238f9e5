/**
 * Ink, loaded so that it draws, in the colours the terminal takes. Ink decides once, when it is first loaded, whether it runs under
 * continuous integration (the `CI` or `CONTINUOUS_INTEGRATION` variable), and if so it draws
 * nothing until the view ends. The full-screen view is only chosen when standard input and output
 * are both terminals, so a person is watching whatever the environment says: the two variables are
 * hidden while Ink loads and put back at once, so nothing else (tool subprocesses included) sees a
 * change.
 */
import chalk from 'chalk';
import type * as InkModule from 'ink';

type Ink = typeof InkModule;

const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

const saved = new Map<string, string>();
for (const name of CI_VARIABLES) {
  const value = process.env[name];
  if (value !== undefined) {
    saved.set(name, value);
    delete process.env[name];
  }
}

let ink: Ink;
try {
  ink = await import('ink');
} finally {
  for (const [name, value] of saved) process.env[name] = value;
}

export const Box: Ink['Box'] = ink.Box;
export const Text: Ink['Text'] = ink.Text;
export const render: Ink['render'] = ink.render;
export const useInput: Ink['useInput'] = ink.useInput;
export const useStdout: Ink['useStdout'] = ink.useStdout;

/**
 * The colours the view is drawn in, decided by the terminal it draws on rather than by whichever
 * library first loaded the colour support: that one looked at the CI variables too, and would leave
 * a terminal monochrome because a CI variable is set. `NO_COLOR`, `FORCE_COLOR` and `TERM=dumb`
 * still count; `color: false` (`--no-color`) draws in none. Returns the undo.
 */
export function applyTerminalColours(stdout: NodeJS.WritableStream & { getColorDepth?: (env?: object) => number }, env: Readonly<Record<string, string | undefined>>, color: boolean): () => void {
  const before = chalk.level;
  if (!color) chalk.level = 0;
  else if (typeof stdout.getColorDepth === 'function') {
    const terminal = Object.fromEntries(Object.entries(env).filter(([name]) => !(CI_VARIABLES as readonly string[]).includes(name)));
    const depth = stdout.getColorDepth(terminal);
    chalk.level = depth >= 24 ? 3 : depth >= 8 ? 2 : depth >= 4 ? 1 : 0;
  }
  return () => {
    chalk.level = before;
  };
}
