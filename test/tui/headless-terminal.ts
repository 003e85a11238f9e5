/**
 * A headless terminal (xterm) for tests of the full-screen view: what is drawn on it, as a person
 * would see it, and keys pressed into it.
 */
import { PassThrough, Writable } from 'node:stream';
import { Terminal } from '@xterm/headless';
import { eventually } from '../../src/agenttest/eventually.js';

export const COLUMNS = 72;
export const ROWS = 16;

/** A terminal that keeps what is drawn on it, as a person would see it. */
export interface Screen {
  readonly stdout: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
  text(): string;
  until(needle: string | RegExp): Promise<string>;
  press(keys: string): void;
}

export function headless(record?: (chunk: string) => void): Screen {
  const term = new Terminal({ cols: COLUMNS, rows: ROWS, allowProposedApi: true, convertEol: true });
  const out = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      term.write(typeof chunk === 'string' ? chunk : new Uint8Array(chunk), () => cb());
    },
  });
  Object.assign(out, { isTTY: true, columns: COLUMNS, rows: ROWS });
  if (record !== undefined) {
    // what was written, in order, at the moment it is written (the terminal may still be parsing)
    const write = out.write.bind(out) as (chunk: unknown, ...rest: unknown[]) => boolean;
    Object.assign(out, { write: (chunk: unknown, ...rest: unknown[]) => (record(String(chunk)), write(chunk, ...rest)) });
  }
  const input = new PassThrough();
  Object.assign(input, { isTTY: true, setRawMode: () => input, ref: () => input, unref: () => input });
  const text = (): string => {
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < ROWS; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  return {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin: input as unknown as NodeJS.ReadStream,
    text,
    until: (needle) =>
      eventually(
        () => {
          const shown = text();
          return (typeof needle === 'string' ? shown.includes(needle) : needle.test(shown)) && shown;
        },
        `the screen to show ${String(needle)}`,
        { observed: text },
      ),
    press: (keys) => input.write(keys),
  };
}
