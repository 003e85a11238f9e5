/**
 * Go duration syntax (`300ms`, `1.5h`, `2h45m`, `-1m`), the format agent.yaml has always used.
 *
 * Written by hand on purpose: the duration packages on npm accept bare numbers, spaces and unit
 * words that Go rejects, and a configuration must mean the same thing to every fisk-ai build.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Thrown for text that is not a Go duration. */
export class DurationSyntaxError extends Error {
  constructor(
    readonly input: string,
    detail: string,
  ) {
    super(`invalid duration "${input}": ${detail} (use Go syntax such as 300ms, 30s, 1.5h or 2h45m)`);
    this.name = 'DurationSyntaxError';
  }
}

const SEGMENT = /^(\d*)(?:\.(\d*))?([a-zµμ]+)/;

/**
 * Parses a Go duration into milliseconds (fractional below a millisecond). A bare `0` is the only
 * number accepted without a unit.
 */
export function parseGoDuration(input: string): number {
  let rest = input;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new DurationSyntaxError(input, 'it is empty');
  let total = 0;
  while (rest !== '') {
    const m = SEGMENT.exec(rest);
    if (!m) {
      if (/^\d+(\.\d*)?$/.test(rest)) throw new DurationSyntaxError(input, 'a number needs a unit');
      throw new DurationSyntaxError(input, `unexpected "${rest}"`);
    }
    const [whole, intPart = '', fracPart, unit = ''] = m;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) {
      throw new DurationSyntaxError(input, 'a unit needs a number before it');
    }
    const factor = UNIT_MS[unit];
    if (factor === undefined) throw new DurationSyntaxError(input, `unknown unit "${unit}"`);
    const value = Number(`${intPart === '' ? '0' : intPart}.${fracPart ?? '0'}`);
    total += value * factor;
    rest = rest.slice(whole.length);
  }
  return sign * total;
}

/** Renders milliseconds back in Go's style (`1m30s`, `250ms`, `0s`), for display only. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${neg ? '-' : ''}${Number(rest.toFixed(6))}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Number((rest / 1000).toFixed(6));
  let out = '';
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  out += `${s}s`;
  return (neg ? '-' : '') + out;
}
