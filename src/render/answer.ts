/**
 * The final answer on stdout: markdown rendered for a terminal, raw text everywhere else, so a
 * piped answer is exactly what the model wrote and a terminal gets headings, lists and code set out.
 */
import { stripControl } from '../agent/sanitize.js';

/** Renders markdown for a terminal; `loadMarkdown` gives the one in `markdown.ts`. */
export type MarkdownRenderer = (text: string) => string;

/** Whether the answer is rendered: stdout is a terminal and colour is not turned off. */
export function shouldRenderMarkdown(stdoutIsTty: boolean, noColor: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  const noColorEnv = env['NO_COLOR'];
  return stdoutIsTty && !noColor && (noColorEnv === undefined || noColorEnv === '');
}

/** The terminal markdown renderer for `width` columns when `render` is true (loading it then), else undefined. */
export async function loadMarkdown(render: boolean, width?: number): Promise<MarkdownRenderer | undefined> {
  if (!render) return undefined;
  const { renderMarkdown } = await import('./markdown.js');
  return (text) => renderMarkdown(text, width);
}

/**
 * The answer as it is printed, always ending in one newline: rendered with `markdown` when one is
 * given, raw otherwise. Control sequences the model wrote are stripped first in both modes: only
 * the renderer's own styling reaches the terminal.
 */
export function formatAnswer(text: string, markdown: MarkdownRenderer | undefined): string {
  const clean = stripControl(text);
  if (markdown === undefined) return clean.endsWith('\n') ? clean : `${clean}\n`;
  return `${markdown(clean)}\n`;
}
