/**
 * Markdown set out for a terminal (marked with marked-terminal and its syntax highlighting). A
 * module of its own, loaded only when an answer is about to be rendered for a terminal: a piped
 * or uncoloured run never loads the renderer.
 */
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

let renderer: Marked | undefined;

/** The markdown rendered for a terminal, trailing newlines trimmed. */
export function renderMarkdown(text: string): string {
  renderer ??= new Marked(markedTerminal());
  return renderer.parse(text, { async: false }).replace(/\n+$/, '');
}
