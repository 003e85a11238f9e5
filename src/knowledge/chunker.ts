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

/** What `headingText` rewrites beyond spacing: links and images, tags, code ticks. */
const MARKUP = /[[<`]/;
/** Spacing that collapsing would change: a blank other than a space, or two blanks in a row. */
const LOOSE_SPACE = /[^\S ]|\s\s/;

/**
 * The words a reader sees in a heading: images (badges) dropped, links reduced to their text,
 * HTML tags and inline-code ticks removed. A badge's URL repeated in every breadcrumb under it
 * would otherwise count as heading words and dilute the heading's real ones.
 */
export function headingText(raw: string): string {
  // most headings are plain words: without brackets, tags or ticks only the spacing can change
  if (!MARKUP.test(raw)) return LOOSE_SPACE.test(raw) ? raw.replace(/\s+/g, ' ').trim() : raw.trim();
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

/** Packs blocks into chunks of at most `max` characters, blocks joined by a blank line. */
function pack(blocks: readonly Block[], max: number): string[] {
  const out: string[] = [];
  // the chunk being filled, as its pieces and the length they join to: joined once, when full
  let parts: string[] = [];
  let length = 0;
  const close = (): void => {
    out.push(parts.length === 1 ? (parts[0] ?? '') : parts.join('\n\n'));
    parts = [];
    length = 0;
  };
  for (const b of blocks) {
    const pieces = !b.atomic && b.text.length > max ? splitLong(b.text, max) : [b.text];
    for (const piece of pieces) {
      if (length !== 0 && length + 2 + piece.length > max) close();
      if (length === 0) {
        parts = [piece];
        length = piece.length;
      } else {
        parts.push(piece);
        length += 2 + piece.length;
      }
    }
  }
  if (length !== 0) close();
  return out;
}

const SPACE = 0x20;
const TAB = 0x09;
const HASH = 0x23;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const EQUALS = 0x3d;
const DASH = 0x2d;

/**
 * The character after at most three leading spaces: a heading, a fence and an underline each
 * start with their own, so a line whose lead is none of them needs none of the patterns.
 */
function leadOf(line: string): number {
  const end = line.length < 3 ? line.length : 3;
  let j = 0;
  while (j < end && line.charCodeAt(j) === SPACE) j++;
  return j < line.length ? line.charCodeAt(j) : -1;
}

/** Whether text is empty or only white space, without trimming a copy when it starts visibly. */
function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  if (c > SPACE && c < 0x7f) return false;
  return text.trim() === '';
}

/** Whether a line closes a fence of `count` `marker` characters: as long a run, then only blanks. */
function closesFence(line: string, marker: number, count: number): boolean {
  const end = line.length < 3 ? line.length : 3;
  let j = 0;
  while (j < end && line.charCodeAt(j) === SPACE) j++;
  let k = j;
  while (k < line.length && line.charCodeAt(k) === marker) k++;
  if (k - j < count) return false;
  for (; k < line.length; k++) {
    const c = line.charCodeAt(k);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}

/** The chunker's state while it walks one document's lines. */
class Chunking {
  readonly chunks: Chunk[] = [];
  // each open heading with its breadcrumb, so a new heading extends its parent's without a join
  readonly stack: { level: number; path: string }[] = [];
  title = '';
  blocks: Block[] = [];
  /** The open paragraph: its first line's index and how many lines it has so far. */
  paraStart = 0;
  paraLines = 0;
  headingPath = '';

  constructor(
    readonly lines: readonly string[],
    readonly maxChars: number,
  ) {}

  endPara(): void {
    if (this.paraLines === 0) return;
    const first = this.lines[this.paraStart] ?? '';
    const text = this.paraLines === 1 ? first : this.lines.slice(this.paraStart, this.paraStart + this.paraLines).join('\n');
    this.blocks.push({ text, atomic: false });
    this.paraLines = 0;
  }

  flush(): void {
    this.endPara();
    for (const content of pack(this.blocks, this.maxChars)) {
      if (!isBlank(content)) this.chunks.push({ headingPath: this.headingPath, content });
    }
    this.blocks = [];
  }

  /** Takes a fence opened at line `i` (its marker `lead` repeated `run` times); returns its last line. */
  fence(i: number, lead: number, run: number): number {
    this.endPara();
    const lines = this.lines;
    let end = i;
    while (++end < lines.length) {
      if (closesFence(lines[end] ?? '', lead, run)) break;
    }
    const last = end < lines.length ? end : lines.length - 1;
    this.blocks.push({ text: i === last ? (lines[i] ?? '') : lines.slice(i, last + 1).join('\n'), atomic: true });
    return last;
  }

  /** Every heading's breadcrumb in order, for a document that has headings and nothing else. */
  readonly headingPaths: string[] = [];

  /** Opens a section under a heading of `level` whose visible words are `textOf`. */
  heading(level: number, textOf: string): void {
    this.flush();
    if (level === 1 && this.title === '' && textOf !== '') this.title = textOf;
    const stack = this.stack;
    while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= level) stack.pop();
    const parent = stack[stack.length - 1];
    if (textOf !== '') stack.push({ level, path: parent === undefined ? textOf : `${parent.path}${HEADING_SEPARATOR}${textOf}` });
    this.headingPath = stack[stack.length - 1]?.path ?? '';
    if (textOf !== '') this.headingPaths.push(this.headingPath);
  }

  /**
   * A document of headings only (`# Deploy`) would have no chunk and could never be found: it
   * gets one, holding its headings, under the first of them.
   */
  headingsOnly(): void {
    if (this.chunks.length > 0 || this.headingPaths.length === 0) return;
    const content = this.headingPaths.map((path) => path.split(HEADING_SEPARATOR).at(-1) ?? path).join('\n');
    this.chunks.push({ headingPath: this.headingPaths[0] ?? '', content });
  }
}

/**
 * Chunks Markdown text. Headings (ATX `#` form) flush the section and update the breadcrumb stack;
 * a heading inside a fenced block is code, not a heading. Sections with no body produce no chunk:
 * their heading still appears in the breadcrumbs of the sections under it. A document with
 * headings and no body at all gets one chunk of its headings, so it can still be found.
 */
export function chunkMarkdown(text: string, maxChars: number = DEFAULT_CHUNK_CHARS): ChunkedDocument {
  const lines = (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).split('\n');
  const chunking = new Chunking(lines, maxChars);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const lead = leadOf(line);
    if (lead === BACKTICK || lead === TILDE) {
      const fence = FENCE_OPEN.exec(line);
      if (fence !== null) {
        i = chunking.fence(i, lead, (fence[1] ?? '```').length);
        continue;
      }
    } else if (lead === HASH) {
      const heading = HEADING.exec(line);
      if (heading !== null) {
        chunking.heading((heading[1] ?? '#').length, headingText(heading[2] ?? ''));
        continue;
      }
    } else if ((lead === EQUALS || lead === DASH) && chunking.paraLines === 1) {
      // an underlined single-line paragraph is a heading; `---` after a blank line stays a rule
      const underline = SETEXT.exec(line);
      if (underline !== null) {
        const textOf = headingText(lines[chunking.paraStart] ?? '');
        chunking.paraLines = 0;
        chunking.heading(underline[1]?.startsWith('=') === true ? 1 : 2, textOf);
        continue;
      }
    }
    if (isBlank(line)) {
      chunking.endPara();
      continue;
    }
    if (chunking.paraLines === 0) chunking.paraStart = i;
    chunking.paraLines++;
  }
  chunking.flush();
  chunking.headingsOnly();
  return { title: chunking.title, chunks: chunking.chunks };
}
