/**
 * Ink, loaded so that it draws, in the colours the terminal takes. Ink decides once, when it is first loaded, whether it runs under
 * continuous integration (the `CI` or `CONTINUOUS_INTEGRATION` variable), and if so it draws
 * nothing until the view ends. The full-screen view is only chosen when standard input and output
 * are both terminals, so a person is watching whatever the environment says: the two variables are
 * hidden while Ink loads and put back at once, so nothing else (tool subprocesses included) sees a
 * change.
 */
import chalk from 'chalk';
import type { ChalkInstance } from 'chalk';
import type * as InkModule from 'ink';

type Ink = typeof InkModule;

const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/**
 * Ink as it was loaded. The bundled program loads Ink from a module of its own (Ink's layout engine
 * starts with a top-level await, which the rest of the bundle cannot hold), and that module carries
 * the copy of chalk Ink draws with as `drawingChalk`; loaded from its package, Ink shares this
 * module's chalk and there is none.
 */
type LoadedInk = Ink & { readonly drawingChalk?: ChalkInstance };

let loaded: LoadedInk | undefined;

/** Loads Ink, once, with the CI variables hidden while it loads. The view draws only after this. */
export async function loadInk(): Promise<Ink> {
  if (loaded !== undefined) return loaded;
  const saved = new Map<string, string>();
  for (const name of CI_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) {
      saved.set(name, value);
      delete process.env[name];
    }
  }
  try {
    loaded = await import('ink');
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
  return loaded;
}

/** Ink, for the view's components; {@link loadInk} has loaded it before anything draws. */
export function ink(): Ink {
  if (loaded === undefined) throw new Error('the full-screen view drew before Ink was loaded');
  return loaded;
}

/**
 * The colours the view is drawn in, decided by the terminal it draws on rather than by whichever
 * library first loaded the colour support: that one looked at the CI variables too, and would leave
 * a terminal monochrome because a CI variable is set. `NO_COLOR`, `FORCE_COLOR` and `TERM=dumb`
 * still count; `color: false` (`--no-color`) draws in none. Returns the undo.
 */
export function applyTerminalColours(
  stdout: NodeJS.WritableStream & { getColorDepth?: (env?: object) => number },
  env: Readonly<Record<string, string | undefined>>,
  color: boolean,
): () => void {
  // the view's own lines are painted with this module's chalk, Ink's text with the one Ink draws with
  const chalks = [chalk, ...(loaded?.drawingChalk === undefined || loaded.drawingChalk === chalk ? [] : [loaded.drawingChalk])];
  const before = chalks.map((c) => c.level);
  let level = chalk.level;
  if (!color) level = 0;
  else if (typeof stdout.getColorDepth === 'function') {
    const terminal = Object.fromEntries(Object.entries(env).filter(([name]) => !(CI_VARIABLES as readonly string[]).includes(name)));
    const depth = stdout.getColorDepth(terminal);
    level = depth >= 24 ? 3 : depth >= 8 ? 2 : depth >= 4 ? 1 : 0;
  }
  for (const c of chalks) c.level = level;
  return () => {
    chalks.forEach((c, i) => {
      c.level = before[i] ?? c.level;
    });
  };
}
