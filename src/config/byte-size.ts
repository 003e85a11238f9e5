/**
 * Sizes in bytes as an operator writes them: a whole number of bytes (`65536`), or a whole number
 * with `KiB`, `MiB` or `GiB` (`64KiB`, `1 MiB`, `2GiB`). Binary units only, so `64KiB` means what `OUTPUT_CAP`
 * means and never 64 000.
 */
import { ConfigError } from './errors.js';

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 * 1024, gib: 1024 * 1024 * 1024 };

/** Parses `value` at `key`, within `[min, max]` bytes; undefined gives `fallback`. */
export function parseByteSize(value: number | string | undefined, key: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  let bytes: number | undefined;
  if (typeof value === 'number') {
    bytes = Number.isSafeInteger(value) ? value : undefined;
  } else {
    const m = /^\s*(\d+)\s*([A-Za-z]*)\s*$/u.exec(value);
    const unit = m === null ? undefined : UNITS[(m[2] ?? '').toLowerCase()];
    bytes = m === null || unit === undefined ? undefined : Number(m[1]) * unit;
  }
  if (bytes === undefined) {
    throw ConfigError.of(
      'value',
      key,
      `${JSON.stringify(value)} is not a size; write a whole number of bytes, or one with KiB, MiB or GiB (64KiB)`,
    );
  }
  if (bytes < min || bytes > max) {
    throw ConfigError.of('value', key, `${JSON.stringify(value)} is out of range; use ${sizeWords(min)} to ${sizeWords(max)}`);
  }
  return bytes;
}

function sizeWords(bytes: number): string {
  if (bytes % (1024 * 1024 * 1024) === 0) return `${bytes / (1024 * 1024 * 1024)}GiB`;
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KiB`;
  return `${bytes} bytes`;
}
