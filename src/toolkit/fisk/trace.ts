/**
 * A call rendered for a trace line or an approval prompt: the command path, the flags sorted, then
 * the positionals, each argument quoted as a shell would need it typed. Quoting shows where a
 * padded argument ends, and invisible characters (controls, zero-width, bidirectional overrides)
 * are spelled out as escapes, so a model can neither paint over a terminal nor hide part of a value.
 */
import { renderArgvFromJson } from './argv.js';
import type { CommandShape } from './argv.js';

import { revealInvisible, shellJoin } from '../../util/shell-quote.js';
import { oneLine } from '../../util/terminal-text.js';

/** Removes terminal sequences, control and bidirectional-override characters, on one line. */
export function stripControl(text: string): string {
  return oneLine(text);
}

/** The trace line for one call; input the argv rules refuse is shown as its raw JSON instead. */
export function traceLine(shape: CommandShape, input: string): string {
  let argv: string[];
  try {
    argv = renderArgvFromJson(shape, input);
  } catch {
    return stripControl(revealInvisible(`${shape.path.join(' ')} ${input.trim()}`.trim()));
  }
  const rest = argv.slice(shape.path.length);
  const dash = rest.indexOf('--');
  const flags = (dash < 0 ? rest : rest.slice(0, dash)).sort();
  const positionals = dash < 0 ? [] : rest.slice(dash);
  return shellJoin([...shape.path, ...flags, ...positionals]);
}
