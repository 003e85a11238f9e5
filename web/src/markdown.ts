/**
 * Model text as Markdown, rendered through a sanitizer. HTML the model writes is shown as the text
 * it is, never run and never silently dropped; links open in a new tab; a knowledge citation
 * (`docs/retention.md#3`) becomes a link that opens the cited passage.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { el } from './dom.js';

/** A citation as the knowledge tools print it: a stored path with an extension, `#`, a chunk number. */
const CITATION = /(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]+#\d+)(?![\w#])/g;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const parser = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // raw HTML in the model's text is shown as text: what it wrote stays visible and inert
    html({ text, block }) {
      const shown = escapeHtml(text);
      return block === true ? `<p class="raw-html">${shown.replace(/\n+$/, '')}</p>\n` : shown;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement) {
    node.target = '_blank';
    node.rel = 'noopener noreferrer';
  }
});

/** Markdown to sanitized DOM, with citations turned into links that open the cited chunk. */
export function markdown(target: HTMLElement, text: string): void {
  const html = parser.parse(text) as string;
  target.replaceChildren(
    DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'img'] }),
  );
  linkCitations(target);
}

function linkCitations(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    if ((n.parentElement?.closest('a') ?? null) === null) nodes.push(n as Text);
  }
  for (const node of nodes) {
    const value = node.nodeValue ?? '';
    CITATION.lastIndex = 0;
    if (!CITATION.test(value)) continue;
    CITATION.lastIndex = 0;
    const parts = document.createDocumentFragment();
    let at = 0;
    for (const m of value.matchAll(CITATION)) {
      const ref = m[1] ?? '';
      const start = m.index;
      parts.append(value.slice(at, start));
      const a = el('a', 'citation', ref);
      a.href = '#';
      a.dataset['ref'] = ref;
      a.title = 'open the cited passage';
      parts.append(a);
      at = start + m[0].length;
    }
    parts.append(value.slice(at));
    node.replaceWith(parts);
  }
}
