import { Writable } from 'node:stream';
import type { Io } from './io.js';

/** An in-memory `Io` for command tests: what a command printed, split by stream. */
export interface CapturedIo extends Io {
  stdout(): string;
  stderr(): string;
}

export function captureIo(env: Readonly<Record<string, string | undefined>> = {}, cwd = process.cwd()): CapturedIo {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void): Writable =>
    new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        append(chunk.toString());
        cb();
      },
    });
  return {
    out: sink((s) => (out += s)),
    err: sink((s) => (err += s)),
    env,
    cwd,
    stdout: () => out,
    stderr: () => err,
  };
}
