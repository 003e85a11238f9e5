/**
 * A call rendered for a trace line or an approval prompt: the command path, the flags sorted, then
 * the positionals. Control characters are removed so a model cannot paint over a terminal.
 */
import { renderArgvFromJson } from './argv.js';
import type { CommandShape } from './argv.js';

// eslint-disable-next-line no-control-regex -- the point is to remove control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Removes control and bidirectional-override characters. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, '');
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
