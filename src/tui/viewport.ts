/**
 * The full-screen view's window onto its transcript: which rows show (following the tail until the
 * person scrolls up), scrolling by keys and the mouse wheel, and search with its matches.
 */
import type { KeyPress } from './view-model.js';
import type { Row } from './transcript.js';

/** What the viewport reads from the view around it. */
export interface ViewportSource {
  /** The transcript's rows as drawn now (with the current search matches revealed). */
  rows(): Row[];
  /** How many rows the conversation has on screen now. */
  height(): number;
  /** The transcript lines matching `query`. */
  search(query: string): number[];
}

const MOUSE = /\[<(\d+);\d+;\d+[Mm]/g;
const WHEEL_STEP = 3;

export class Viewport {
  #offset = 0;
  #follow = true;
  #searching = false;
  #query = '';
  #matches: number[] = [];
  #match = -1;

  constructor(private readonly source: ViewportSource) {}

  get following(): boolean {
    return this.#follow;
  }

  /** The search row is open, taking the query's keys. */
  get searching(): boolean {
    return this.#searching;
  }

  get query(): string {
    return this.#query;
  }

  /** The lines the search matched, to be revealed in folded blocks; undefined with no query. */
  revealed(): ReadonlySet<number> | undefined {
    return this.#query === '' ? undefined : new Set(this.#matches);
  }

  /** The rows on screen out of `rows`, the current match marked, for a view `height` rows tall. */
  window(rows: readonly Row[], height: number): (Row & { readonly current: boolean })[] {
    const max = Math.max(0, rows.length - height);
    if (this.#follow) this.#offset = max;
    this.#offset = Math.min(Math.max(0, this.#offset), max);
    const current = this.#match >= 0 ? this.#matches[this.#match] : undefined;
    return rows.slice(this.#offset, this.#offset + height).map((r) => ({ ...r, current: current !== undefined && r.line === current }));
  }

  /** What the bar says about the search and scrolling (empty parts left out). */
  labels(): string[] {
    return [
      this.#matches.length > 0 ? `match ${this.#match + 1}/${this.#matches.length}` : this.#query !== '' ? 'no match' : '',
      this.#follow ? '' : 'scrolled',
    ].filter((s) => s !== '');
  }

  /** Opens the search row with an empty query. */
  startSearch(): void {
    this.#searching = true;
    this.setQuery('');
  }

  /** A new transcript: no query, and the tail followed. */
  restart(): void {
    this.setQuery('');
    this.#follow = true;
  }

  /** A key typed at the search row. */
  searchKey(input: string, key: KeyPress): void {
    if (key.escape === true) {
      this.#searching = false;
      this.setQuery('');
    } else if (key.return === true) {
      this.#searching = false;
      this.jump(0);
    } else if (key.backspace === true || key.delete === true) {
      this.setQuery(Array.from(this.#query).slice(0, -1).join(''));
    } else if (key.ctrl !== true && input !== '') {
      this.setQuery(this.#query + input.replace(/[\r\n]/g, ''));
      if (/[\r\n]$/.test(input)) {
        this.#searching = false;
        this.jump(0);
      }
    }
  }

  setQuery(query: string): void {
    this.#query = query;
    this.#matches = this.source.search(query);
    this.#match = this.#matches.length > 0 ? 0 : -1;
  }

  /** Moves to the next (+1) or previous (-1) match; 0 to the first at or below the view's top. */
  jump(step: number): void {
    this.#matches = this.source.search(this.#query);
    const count = this.#matches.length;
    if (count === 0) {
      this.#match = -1;
      return;
    }
    if (step === 0) {
      const rows = this.source.rows();
      const top = rows[this.#offset]?.line ?? 0;
      const at = this.#matches.findIndex((l) => l >= top);
      this.#match = at < 0 ? 0 : at;
    } else {
      this.#match = (Math.max(0, this.#match) + step + count) % count;
    }
    const line = this.#matches[this.#match] as number;
    const rows = this.source.rows();
    const row = rows.findIndex((r) => r.line === line);
    this.#follow = false;
    this.#offset = Math.max(0, row - Math.floor(this.source.height() / 2));
  }

  /** A scrolling key; false when `input` is not one. At the input row (`typing`) the arrows and letters are the prompt's. */
  scrollKey(input: string, key: KeyPress, typing: boolean): boolean {
    const page = Math.max(1, this.source.height() - 1);
    // at the input row the arrows walk the prompt history instead
    if ((!typing && key.upArrow === true) || (!typing && input === 'k' && key.ctrl !== true)) this.scroll(-1);
    else if ((!typing && key.downArrow === true) || (!typing && input === 'j' && key.ctrl !== true)) this.scroll(1);
    else if (key.pageUp === true) this.scroll(-page);
    else if (key.pageDown === true) this.scroll(page);
    else if (key.home === true || (!typing && input === 'g')) {
      this.#follow = false;
      this.#offset = 0;
    } else if (key.end === true || (!typing && input === 'G')) this.#follow = true;
    else return false;
    return true;
  }

  /** Scrolling never re-arms tail-follow, even at the bottom: only the mouse, End and G do. */
  scroll(delta: number, byMouse = false): void {
    const height = this.source.height();
    const max = Math.max(0, this.source.rows().length - height);
    const from = this.#follow ? max : this.#offset;
    this.#offset = Math.min(Math.max(0, from + delta), max);
    this.#follow = byMouse && this.#offset >= max;
  }

  /** Mouse reports in `input` (the wheel scrolls); false when there were none. */
  mouse(input: string): boolean {
    let seen = false;
    for (const match of input.matchAll(MOUSE)) {
      const button = Number(match[1]);
      if (button === 64) this.scroll(-WHEEL_STEP, true);
      else if (button === 65) this.scroll(WHEEL_STEP, true);
      seen = true;
    }
    return seen;
  }
}
