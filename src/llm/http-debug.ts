import { closeSync, constants, openSync, unlinkSync, writeSync } from 'node:fs';
import type { FetchMiddleware } from './http.js';
import { isEventStream, requestBodyText, requestMethod, requestUrl } from './http.js';

/** An open HTTP debug log: install `middleware` on the provider, `close` when the run ends. */
export interface HttpDebugLog {
  readonly path: string;
  readonly middleware: FetchMiddleware;
  close(): void;
}

/**
 * Opens the HTTP debug log (`fisk run --http-debug`): every request and response body the
 * provider exchanges, pretty-printed when JSON. Any existing file is unlinked first and the new
 * one created exclusively with mode 0600, because the bodies hold the whole conversation; the
 * exclusive create refuses to write through a link planted at the path. Headers are never
 * written, so the API key never reaches the file.
 */
export function openHttpDebugLog(path: string): HttpDebugLog {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  let open = true;
  const write = (text: string): void => {
    if (open) writeSync(fd, text);
  };
  const middleware: FetchMiddleware = (next) => async (input, init) => {
    const body = requestBodyText(init);
    write(
      `\n=== HTTP request: ${requestMethod(input, init)} ${requestUrl(input)} ===\n${body === undefined ? '(body not available)' : pretty(body)}\n`,
    );
    const res = await next(input, init);
    const record = res
      .clone()
      .text()
      .then((text) => write(`\n=== HTTP response: ${res.status} ===\n${pretty(text)}\n`));
    // A streamed answer is logged once it has arrived whole, without holding it back meanwhile.
    if (isEventStream(res)) record.catch(() => undefined);
    else await record;
    return res;
  };
  return {
    path,
    middleware,
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
