/**
 * The final answer on stdout: markdown rendered for a terminal, raw text everywhere else, so a
 * piped answer is exactly what the model wrote and a terminal gets headings, lists and code set out.
 */
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { stripControl } from '../../agent/sanitize.js';

/** Whether the answer is rendered: stdout is a terminal and colour is not turned off. */
export function shouldRenderMarkdown(stdoutIsTty: boolean, noColor: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  const noColorEnv = env['NO_COLOR'];
  return stdoutIsTty && !noColor && (noColorEnv === undefined || noColorEnv === '');
}

let renderer: Marked | undefined;

/**
 * The answer as it is printed, always ending in one newline. Control sequences the model wrote are
 * stripped first in both modes: only the renderer's own styling reaches the terminal.
 */
export function formatAnswer(text: string, markdown: boolean): string {
  const clean = stripControl(text);
  if (!markdown) return clean.endsWith('\n') ? clean : `${clean}\n`;
  renderer ??= new Marked(markedTerminal());
  const out = renderer.parse(clean, { async: false });
  return `${out.replace(/\n+$/, '')}\n`;
}
