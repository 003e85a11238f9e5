/**
 * Markdown set out for a terminal (marked with marked-terminal and its syntax highlighting),
 * wrapped on word boundaries to the terminal's width. A module of its own, loaded only when an
 * answer is about to be rendered for a terminal: a piped or uncoloured run never loads the renderer.
 */
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { wrapText } from './wrap.js';

const renderers = new Map<number, Marked>();

/** The markdown rendered for a terminal `width` columns wide (80 when unknown), trailing newlines trimmed. */
export function renderMarkdown(text: string, width = 80): string {
  let renderer = renderers.get(width);
  if (renderer === undefined) {
    renderer = new Marked(markedTerminal({ reflowText: true, width, showSectionPrefix: false, tab: 2 }));
    renderers.set(width, renderer);
  }
  const rendered = renderer.parse(text, { async: false }).replace(/\n+$/, '');
  // marked-terminal leaves the inline markup of list items as written: set out the common cases
  const inline = rendered.replace(/\*\*([^*\n]+)\*\*/g, '\u001b[1m$1\u001b[22m').replace(/(^|\s)`([^`\n]+)`/g, '$1\u001b[33m$2\u001b[39m');
  return wrapText(inline, width);
}
