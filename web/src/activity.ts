/**
 * A sign of life while the run works: a spinner with what it is doing and the time it has been at
 * it, from the moment a model call starts, so a model that thinks for a minute before its first
 * word does not look like a page that stopped.
 */
import { $ } from './dom.js';

export type Doing = 'starting' | 'thinking' | 'writing' | 'tools' | 'waiting';

const LABELS: Readonly<Record<Doing, string>> = {
  starting: 'Starting',
  thinking: 'Waiting for the model',
  writing: 'The model is writing',
  tools: 'Running tools',
  waiting: 'Waiting for an answer',
};

const box = $('activity');
const label = $('activity-text');
let since = 0;
let doing: Doing | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

function paint(): void {
  if (doing === undefined) return;
  label.textContent = `${LABELS[doing]} · ${elapsed(Date.now() - since)}`;
}

/**
 * Shows what the run is doing now; the clock restarts only when the kind of work changes, from
 * `startedAt` (when the server says the work began, on this page's clock) or now.
 */
export function show(next: Doing, startedAt?: number): void {
  if (next !== doing) {
    // writing goes on from the same model call: its clock keeps running
    if (!(doing === 'thinking' && next === 'writing')) since = Math.min(startedAt ?? Date.now(), Date.now());
    doing = next;
  }
  box.hidden = false;
  box.dataset['doing'] = next;
  paint();
  timer ??= setInterval(paint, 500);
}

/** The run stopped working: nothing to show. */
export function hide(): void {
  doing = undefined;
  box.hidden = true;
  delete box.dataset['doing'];
  if (timer !== undefined) clearInterval(timer);
  timer = undefined;
}

/** What the run is doing, if anything. */
export function current(): Doing | undefined {
  return doing;
}
