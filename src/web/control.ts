/**
 * Which open tab controls the agent. The first tab to connect does; every other one watches. The
 * controlling tab is handed a secret key over its own event stream (no other tab ever sees it),
 * keeps it for the life of the browser tab, and shows it when it connects again: a reload comes
 * back in control instead of losing it to a watching tab that happened to be next. A key proves
 * only "I am the tab that had control"; the access token still guards every request.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** How long control stays with a controlling tab that went away, waiting for it to come back from a reload. */
export const RECLAIM_MS = 5_000;

function sameKey(given: string, key: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class TabControl {
  readonly #tabs: string[] = [];
  #controller: string | undefined;
  /** The controlling tab's key; kept while control is held for a reload. */
  #key: string | undefined;
  /** A tab that showed the key while the controlling stream was still open (a reload racing its own close). */
  #claimant: string | undefined;
  #held: ReturnType<typeof setTimeout> | undefined;
  readonly #changed: () => void;
  readonly #reclaimMs: number;

  /** @param changed called after control moved, so every tab can be told. */
  constructor(changed: () => void, reclaimMs = RECLAIM_MS) {
    this.#changed = changed;
    this.#reclaimMs = reclaimMs;
  }

  /** The controlling tab, if any tab controls right now. */
  get controller(): string | undefined {
    return this.#controller;
  }

  /** The key the controlling tab keeps; only ever sent to that tab. */
  keyFor(tab: string): string | undefined {
    return tab === this.#controller ? this.#key : undefined;
  }

  /** A tab connected, showing the key it kept from before, if any. */
  attach(tab: string, claim: string | undefined): void {
    this.#tabs.push(tab);
    const claims = claim !== undefined && this.#key !== undefined && sameKey(claim, this.#key);
    if (claims && this.#controller === undefined) {
      this.#grant(tab, this.#key);
      return;
    }
    if (claims) {
      // the old stream has not closed yet: this tab takes over when it does
      this.#claimant = tab;
      return;
    }
    if (this.#controller === undefined && this.#held === undefined) this.#grant(tab, undefined);
  }

  /** A tab went away. Returns true when it was the controlling one. */
  detach(tab: string): boolean {
    const at = this.#tabs.indexOf(tab);
    if (at >= 0) this.#tabs.splice(at, 1);
    if (this.#claimant === tab) this.#claimant = undefined;
    if (this.#controller !== tab) return false;
    this.#controller = undefined;
    const claimant = this.#claimant;
    if (claimant !== undefined) {
      this.#claimant = undefined;
      this.#grant(claimant, this.#key);
      return true;
    }
    if (this.#tabs.length === 0) {
      // nobody else to pass control to: the next tab to connect gets it, with or without the key
      this.#key = undefined;
      return true;
    }
    // another tab is open: control waits briefly for this one to come back from a reload
    this.#held = setTimeout(() => {
      this.#held = undefined;
      this.#key = undefined;
      const next = this.#tabs[0];
      if (next !== undefined && this.#controller === undefined) this.#grant(next, undefined);
    }, this.#reclaimMs);
    this.#held.unref();
    return true;
  }

  #grant(tab: string, key: string | undefined): void {
    if (this.#held !== undefined) clearTimeout(this.#held);
    this.#held = undefined;
    this.#controller = tab;
    this.#key = key ?? randomBytes(18).toString('base64url');
    this.#changed();
  }

  /** Stops waiting for a tab to come back. */
  close(): void {
    if (this.#held !== undefined) clearTimeout(this.#held);
    this.#held = undefined;
  }
}
