/**
 * The full-screen view's transcript: every line of the conversation, its plain text and its
 * rendered markup kept index-aligned one to one, so search addresses a line by its index and a
 * streamed fragment replaces only the line it grows. Lines come from the same renderer as the line
 * surface, so a call or a result reads identically on both.
 *
 * Folding hides a block behind one placeholder row: tool output when folding is on (bar output that
 * fits on one row, which takes no more room than its placeholder), thinking only when it would take
 * more rows than {@link THINKING_FOLD_ROWS}. Search is authoritative over
 * folding (a block holding a match is shown); copying is not (folded content is left out, never
 * sent as its placeholder).
 */
import type { AgentEvent } from '../agent/events.js';
import { stripControl } from '../agent/sanitize.js';
import { paint, toneFor } from '../render/line-colour.js';
import type { LineTone } from '../render/line-colour.js';
import { renderEvent, RESULT_PREFIX, THINKING_PREFIX } from '../render/line-renderer.js';
import { CARD_VALUE_COLUMN } from './card.js';
import { counted } from '../util/count.js';
import { wrapLine } from '../render/wrap.js';

/** Thinking that would take more rows than this is folded. */
export const THINKING_FOLD_ROWS = 4;

/** What a line is, for its tone and for the placeholder a folded block shows. */
export type LineKind = 'call' | 'result' | 'warning' | 'thinking' | 'text' | 'prompt' | 'note' | 'crash' | 'phase' | 'card';

/** A block that folding can hide. */
export interface FoldGroup {
  readonly kind: 'thinking' | 'tool_output';
  readonly first: number;
  readonly count: number;
}

/** One row of the viewport: a piece of a line cut to the width, or a folded block's placeholder. */
export interface Row {
  readonly text: string;
  readonly tone: LineTone;
  /** The line the row belongs to (the first line of a folded block). */
  readonly line: number;
  readonly kind: LineKind;
  readonly placeholder: boolean;
}

/** How the rows are laid out. */
export interface Layout {
  readonly width: number;
  /** Folding is on: tool output is folded, and thinking above the row estimate. */
  readonly folding: boolean;
  /** Lines that reveal their block whatever the folding (the search's matches). */
  readonly revealed?: ReadonlySet<number>;
}

const TABS = /\t/g;

function rowsFor(text: string, width: number): string[] {
  // a string no longer in UTF-16 units than the width has no more code points either
  if (text.length <= width) return [text];
  const chars = Array.from(text);
  if (chars.length <= width) return [text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += width) out.push(chars.slice(i, i + width).join(''));
  return out;
}

/**
 * The rows of a startup card line: cut after a word where the row has one, and continued under the
 * value column, so a long value reads as one block beside its label. A pane too narrow for that is
 * cut like any other line.
 */
function cardRowsFor(text: string, width: number): string[] {
  if (width <= CARD_VALUE_COLUMN * 2) return rowsFor(text, width);
  let rest = Array.from(text);
  if (rest.length <= width) return [text];
  const lead = ' '.repeat(CARD_VALUE_COLUMN);
  const out: string[] = [];
  let room = width;
  // the first row's label and its padding are never a place to cut
  let from = CARD_VALUE_COLUMN;
  while (rest.length > room) {
    const space = rest.lastIndexOf(' ', room);
    const cut = space > from ? space : room;
    out.push(`${out.length === 0 ? '' : lead}${rest.slice(0, cut).join('')}`);
    rest = rest.slice(cut);
    while (rest[0] === ' ') rest = rest.slice(1);
    room = width - CARD_VALUE_COLUMN;
    from = 0;
  }
  if (rest.length > 0) out.push(`${lead}${rest.join('')}`);
  return out;
}

export class Transcript {
  readonly #plain: string[] = [];
  readonly #markup: string[] = [];
  readonly #tone: LineTone[] = [];
  readonly #kind: LineKind[] = [];
  readonly #group: (number | undefined)[] = [];
  readonly #groups: FoldGroup[] = [];
  /** The line a streamed answer is growing, while it streams. */
  #streaming: number | undefined;
  #streamedThisTurn = false;
  /** The first line the streamed answer of this turn took. */
  #streamStart: number | undefined;
  #version = 0;
  /** Each line cut to {@link #wrapWidth}, filled as rows are laid out; a changed line drops its entry. */
  #wrapped: (string[] | undefined)[] = [];
  #wrapWidth = 0;

  constructor(
    /** `markdown` sets out a turn's finished text for the width (escape sequences are dropped from what it returns). */
    private readonly options: {
      readonly verbose: boolean;
      readonly width: () => number;
      readonly markdown?: (text: string, width: number) => string;
    },
  ) {}

  /** Changes each time a line is added or replaced, so a view can tell whether to redraw. */
  get version(): number {
    return this.#version;
  }

  get length(): number {
    return this.#plain.length;
  }

  /** The plain text of every line (what search reads). */
  plain(): readonly string[] {
    return this.#plain;
  }

  /** The rendered markup of every line, index-aligned with {@link plain}. */
  markup(): readonly string[] {
    return this.#markup;
  }

  kindOf(line: number): LineKind | undefined {
    return this.#kind[line];
  }

  groups(): readonly FoldGroup[] {
    return this.#groups;
  }

  /** Adds lines that are not events: the prompt a person typed, a note from the view. */
  add(kind: LineKind, text: string, tone: LineTone = 'plain'): void {
    this.#endStream();
    for (const line of stripControl(text).split('\n')) this.#push(kind, line, tone, undefined);
  }

  /** Adds what one event renders to, in the same words as the line surface. */
  addEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'text_fragment':
        this.#stream(event.text);
        return;
      case 'text': {
        // streamed text is already on screen, and is set out as markdown now that it is whole;
        // a turn that did not stream shows its text now
        const markdown = this.options.markdown;
        const rendered =
          markdown === undefined || event.text.trim() === ''
            ? undefined
            : markdown(stripControl(event.text), Math.max(20, this.options.width()));
        if (this.#streamedThisTurn) {
          if (rendered !== undefined && this.#streamStart !== undefined) this.#replaceFrom(this.#streamStart, rendered);
          this.#endStream();
        } else if (event.final || this.options.verbose || event.text.trim() !== '')
          this.add('text', rendered ?? event.text.replace(/\n+$/, ''));
        this.#streamedThisTurn = false;
        this.#streamStart = undefined;
        return;
      }
      case 'status':
        if (event.phase === 'model_call') {
          this.#endStream();
          this.#streamedThisTurn = false;
        }
        if (!this.options.verbose) return;
        break;
      default:
        break;
    }
    this.#endStream();
    const tone = toneFor(event);
    if (event.type === 'tool_result' && event.refused === undefined) {
      const lines = renderEvent(event, { toolOutput: true, verbose: this.options.verbose });
      // output that fits on one row takes no more room than its placeholder would: it is shown
      const oneRow = lines.length === 1 && rowsFor(lines[0] ?? '', Math.max(1, this.options.width())).length === 1;
      if (oneRow) this.#push('result', lines[0] ?? '', tone, undefined);
      else this.#pushGroup('tool_output', 'result', lines, tone);
      return;
    }
    const lines = renderEvent(event, { toolOutput: true, verbose: this.options.verbose });
    if (event.type === 'thinking') {
      const width = Math.max(1, this.options.width());
      const rows = lines.reduce((n, l) => n + rowsFor(l, width).length, 0);
      if (rows > THINKING_FOLD_ROWS) {
        this.#pushGroup('thinking', 'thinking', lines, tone);
        return;
      }
    }
    const kind = kindFor(event);
    for (const line of lines) this.#push(kind, line, tone, undefined);
  }

  /** The viewport's rows, wrapped to the width, folded blocks as one placeholder row each. */
  rows(layout: Layout): Row[] {
    const width = Math.max(1, layout.width);
    if (width !== this.#wrapWidth) {
      this.#wrapped = [];
      this.#wrapWidth = width;
    }
    const out: Row[] = [];
    for (let i = 0; i < this.#plain.length; i++) {
      const groupNumber = this.#group[i];
      if (groupNumber !== undefined && this.#folded(groupNumber, layout)) {
        const group = this.#groups[groupNumber] as FoldGroup;
        if (i === group.first)
          out.push({
            text: rowsFor(placeholder(group), width)[0] ?? '',
            tone: 'dim',
            line: i,
            kind: this.#kind[i] ?? 'text',
            placeholder: true,
          });
        continue;
      }
      const tone = this.#tone[i] ?? 'plain';
      const kind = this.#kind[i] ?? 'text';
      let wrapped = this.#wrapped[i];
      if (wrapped === undefined) {
        const text = this.#plain[i] ?? '';
        // prose wraps between words; a tool's call and output are cut where the row ends, as written
        wrapped =
          kind === 'card'
            ? cardRowsFor(text, width)
            : kind === 'call' || kind === 'result'
              ? rowsFor(text, width)
              : wrapLine(text, width).flatMap((r) => rowsFor(r, width));
        this.#wrapped[i] = wrapped;
      }
      for (const row of wrapped) out.push({ text: row, tone, line: i, kind, placeholder: false });
    }
    return out;
  }

  /** The lines whose plain text holds `query`, case-insensitively; none for an empty query. */
  search(query: string): number[] {
    const needle = query.toLowerCase();
    if (needle === '') return [];
    const hits: number[] = [];
    this.#plain.forEach((line, i) => {
      if (line.toLowerCase().includes(needle)) hits.push(i);
    });
    return hits;
  }

  /**
   * The transcript as a person copies it: the plain text of every line shown, folded content left
   * out entirely (search reveals nothing here).
   */
  copyText(folding: boolean): string {
    const kept: string[] = [];
    for (let i = 0; i < this.#plain.length; i++) {
      const group = this.#group[i];
      if (group !== undefined && this.#folded(group, { width: 1, folding })) continue;
      kept.push(this.#plain[i] ?? '');
    }
    return kept.join('\n');
  }

  #folded(groupIndex: number, layout: Layout): boolean {
    if (!layout.folding) return false;
    const group = this.#groups[groupIndex] as FoldGroup;
    const revealed = layout.revealed;
    if (revealed !== undefined) {
      for (let i = group.first; i < group.first + group.count; i++) if (revealed.has(i)) return false;
    }
    return true;
  }

  #pushGroup(kind: FoldGroup['kind'], lineKind: LineKind, lines: readonly string[], tone: LineTone): void {
    if (lines.length === 0) return;
    const group = this.#groups.length;
    this.#groups.push({ kind, first: this.#plain.length, count: lines.length });
    for (const line of lines) this.#push(lineKind, line, tone, group);
  }

  #push(kind: LineKind, text: string, tone: LineTone, group: number | undefined): void {
    const plain = text.replace(TABS, '    ');
    this.#plain.push(plain);
    this.#markup.push(paint(plain, tone));
    this.#tone.push(tone);
    this.#kind.push(kind);
    this.#group.push(group);
    this.#version++;
  }

  #stream(fragment: string): void {
    const clean = stripControl(fragment).replace(TABS, '    ');
    if (clean === '') return;
    this.#streamedThisTurn = true;
    const parts = clean.split('\n');
    parts.forEach((part, i) => {
      if (i > 0 || this.#streaming === undefined) {
        this.#push('text', '', 'plain', undefined);
        this.#streaming = this.#plain.length - 1;
        this.#streamStart ??= this.#streaming;
      }
      const at = this.#streaming;
      if (at === undefined) return;
      // only the growing line is replaced: every earlier index keeps its text and markup
      const grown = `${this.#plain[at] ?? ''}${part}`;
      this.#plain[at] = grown;
      this.#markup[at] = grown;
      this.#wrapped[at] = undefined;
      this.#version++;
    });
  }

  #endStream(): void {
    this.#streaming = undefined;
  }

  /** Replaces every line from `first` on with the lines of `text`. */
  #replaceFrom(first: number, text: string): void {
    const count = this.#plain.length - first;
    for (const list of [this.#plain, this.#markup, this.#tone, this.#kind, this.#group] as unknown[][]) list.splice(first, count);
    this.#wrapped = [];
    for (const line of stripControl(text).split('\n')) this.#push('text', line, 'plain', undefined);
  }
}

function kindFor(event: AgentEvent): LineKind {
  switch (event.type) {
    case 'tool_call':
      return 'call';
    case 'tool_result':
      return 'result';
    case 'warning':
      return 'warning';
    case 'thinking':
      return 'thinking';
    case 'crash':
      return 'crash';
    case 'approval':
    case 'progress':
      return 'note';
    case 'status':
      return 'phase';
    case 'text':
    case 'text_fragment':
    case 'question':
      return 'text';
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The one row a folded block shows, in its kind's prefix. */
export function placeholder(group: FoldGroup): string {
  const n = group.count;
  const lines = counted(n, 'line');
  return group.kind === 'thinking' ? `${THINKING_PREFIX}… ${lines} folded` : `${RESULT_PREFIX}… ${lines} of output folded`;
}
