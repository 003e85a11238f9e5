/**
 * A call rendered for a trace line or an approval prompt: the command path, the flags sorted, then
 * the positionals. Control characters are removed so a model cannot paint over a terminal.
 */
import { renderArgvFromJson } from './argv.js';
import type { CommandShape } from './argv.js';

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
    return stripControl(`${shape.path.join(' ')} ${input.trim()}`.trim());
  }
  const rest = argv.slice(shape.path.length);
  const dash = rest.indexOf('--');
  const flags = (dash < 0 ? rest : rest.slice(0, dash)).sort();
  const positionals = dash < 0 ? [] : rest.slice(dash);
  return stripControl([...shape.path, ...flags, ...positionals].join(' '));
}
