/**
 * Ink, loaded so that it draws. Ink decides once, when it is first loaded, whether it runs under
 * continuous integration (the `CI` or `CONTINUOUS_INTEGRATION` variable), and if so it draws
 * nothing until the view ends. The full-screen view is only chosen when standard input and output
 * are both terminals, so a person is watching whatever the environment says: the two variables are
 * hidden while Ink loads and put back at once, so nothing else (tool subprocesses included) sees a
 * change.
 */
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
