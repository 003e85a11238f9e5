/**
 * Markdown chunking: split on headings, pack each section's blocks up to a size, never split a
 * fenced code block, and keep the heading breadcrumb of every chunk apart from its body.
 */

/** One chunk: its heading breadcrumb (`Install > Linux`) and its body text. */
export interface Chunk {
  readonly headingPath: string;
  readonly content: string;
}

/** A document split for indexing. */
export interface ChunkedDocument {
  /** The first level-one heading, else empty (the caller falls back to the file name). */
  readonly title: string;
  readonly chunks: readonly Chunk[];
}

/** The default packing size in characters: a few paragraphs, small enough to cite precisely. */
export const DEFAULT_CHUNK_CHARS = 1500;

/** Joins breadcrumb levels. */
export const HEADING_SEPARATOR = ' > ';

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
/** The underline of a setext heading: `===` makes level one, `---` level two. */
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/**
 * The words a reader sees in a heading: images (badges) dropped, links reduced to their text,
 * HTML tags and inline-code ticks removed. A badge's URL repeated in every breadcrumb under it
 * would otherwise count as heading words and dilute the heading's real ones.
 */
export function headingText(raw: string): string {
  return raw
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

interface Block {
  readonly text: string;
  /** A fenced block is packed whole even when it alone exceeds the size. */
  readonly atomic: boolean;
}

/** Splits an over-long paragraph on line breaks, then a single over-long line on a space. */
function splitLong(text: string, max: number): string[] {
  const out: string[] = [];
  let cur = '';
  const push = (): void => {
    if (cur !== '') out.push(cur);
    cur = '';
  };
  for (const line of text.split('\n')) {
    let rest = line;
    while (rest.length > max) {
      push();
      let cut = rest.lastIndexOf(' ', max);
      if (cut < max / 2) cut = max;
      // never cut between the halves of a surrogate pair
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut).replace(/^ +/, '');
    }
    if (cur !== '' && cur.length + 1 + rest.length > max) push();
    cur = cur === '' ? rest : `${cur}\n${rest}`;
  }
  push();
  return out;
}

function pack(blocks: readonly Block[], max: number): string[] {
  const out: string[] = [];
  let cur = '';
  for (const b of blocks) {
    const pieces = !b.atomic && b.text.length > max ? splitLong(b.text, max) : [b.text];
    for (const piece of pieces) {
      if (cur !== '' && cur.length + 2 + piece.length > max) {
        out.push(cur);
        cur = '';
      }
      cur = cur === '' ? piece : `${cur}\n\n${piece}`;
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

/**
 * Chunks Markdown text. Headings (ATX `#` form) flush the section and update the breadcrumb stack;
 * a heading inside a fenced block is code, not a heading. Sections with no body produce no chunk:
 * their heading still appears in the breadcrumbs of the sections under it.
 */
export function chunkMarkdown(text: string, maxChars: number = DEFAULT_CHUNK_CHARS): ChunkedDocument {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const chunks: Chunk[] = [];
  const stack: { level: number; text: string }[] = [];
  let title = '';
  let blocks: Block[] = [];
  let para: string[] = [];
  let headingPath = '';

  const endPara = (): void => {
    if (para.length > 0) blocks.push({ text: para.join('\n'), atomic: false });
    para = [];
  };
  const flush = (): void => {
    endPara();
    for (const content of pack(blocks, maxChars)) {
      if (content.trim() !== '') chunks.push({ headingPath, content });
    }
    blocks = [];
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE_OPEN.exec(line);
    if (fence !== null) {
      endPara();
      const marker = fence[1] ?? '```';
      const closer = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
      const body = [line];
      while (++i < lines.length) {
        const l = lines[i] ?? '';
        body.push(l);
        if (closer.test(l)) break;
      }
      blocks.push({ text: body.join('\n'), atomic: true });
      continue;
    }
    const h = HEADING.exec(line);
    const underline = h === null && para.length === 1 ? SETEXT.exec(line) : null;
    if (h !== null || underline !== null) {
      // an underlined single-line paragraph is a heading; `---` after a blank line stays a rule
      const textOf = headingText(h !== null ? (h[2] ?? '') : (para.pop() ?? ''));
      flush();
      const level = h !== null ? (h[1] ?? '#').length : underline?.[1]?.startsWith('=') === true ? 1 : 2;
      if (level === 1 && title === '' && textOf !== '') title = textOf;
      while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= level) stack.pop();
      if (textOf !== '') stack.push({ level, text: textOf });
      headingPath = stack.map((s) => s.text).join(HEADING_SEPARATOR);
      continue;
    }
    if (line.trim() === '') {
      endPara();
      continue;
    }
    para.push(line);
  }
  flush();
  return { title, chunks };
}
