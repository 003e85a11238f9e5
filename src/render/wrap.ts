/**
 * Wrapping on word boundaries for a terminal: a line longer than the width is broken at its last
 * space that fits, continuing under the line's own indent (and past a list bullet), so no word is
 * cut in two. Escape sequences count for nothing. A single word wider than the line is left whole.
 */
import { stripVTControlCharacters } from 'node:util';

const BULLET = /^(\s*)((?:[*\-+•]|\d+[.)])\s+)?/u;

function visible(text: string): number {
  return Array.from(stripVTControlCharacters(text)).length;
}

/** One line wrapped to `width` columns. */
export function wrapLine(line: string, width: number): string[] {
  if (width < 10 || visible(line) <= width) return [line];
  const plain = stripVTControlCharacters(line);
  const lead = BULLET.exec(plain);
  const indent = ' '.repeat((lead?.[1]?.length ?? 0) + (lead?.[2]?.length ?? 0));
  const words = line.split(' ');
  const out: string[] = [];
  let current = '';
  for (const word of words) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (current !== '' && visible(candidate) > width && visible(current.trim()) > indent.length) {
      out.push(current);
      current = `${indent}${word}`;
    } else {
      current = candidate;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

/** Every line of `text` wrapped to `width` columns. */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width))
    .join('\n');
}
