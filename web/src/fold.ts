/**
 * Tool output folded by the height it takes on screen, not by its count of lines: six lines of a
 * kilobyte each wrap to sixty rows on a phone, so a line count would let them fill the page.
 */
import { el } from './dom.js';

/** The output in a box; fold it with `foldIfTall` once it is on the page and has a height. */
export function outputBox(text: string): HTMLElement {
  const box = el('div', 'output-box');
  box.append(el('pre', 'output', text));
  return box;
}

/**
 * Cuts the output to the height of about seven lines when it is taller, behind a button that shows
 * the rest. It must be attached, so it has a height to measure.
 */
export function foldIfTall(box: HTMLElement): void {
  const pre = box.querySelector('pre.output');
  if (!(pre instanceof HTMLElement)) return;
  pre.classList.add('clipped');
  if (pre.scrollHeight <= pre.clientHeight + 1) {
    pre.classList.remove('clipped');
    return;
  }
  const lines = (pre.textContent ?? '').replace(/\n+$/, '').split('\n').length;
  const kb = Math.max(1, Math.round((pre.textContent ?? '').length / 1024));
  const more = `Show all (${lines === 1 ? 'one line' : `${lines} lines`}, about ${kb} KB)`;
  const toggle = el('button', 'fold-toggle', more);
  toggle.type = 'button';
  toggle.setAttribute('aria-expanded', 'false');
  box.dataset['folded'] = 'true';
  toggle.addEventListener('click', () => {
    const open = pre.classList.toggle('clipped') === false;
    box.dataset['folded'] = String(!open);
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Show less' : more;
  });
  box.append(toggle);
}
