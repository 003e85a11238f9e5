#!/usr/bin/env node
import { endQuietlyOnClosedPipe, processIo } from './io.js';
import { runCli } from './program.js';

/** How long the process may outlive its finished command before it is ended. */
const LINGER_MS = 500;

let finished: number | undefined;
endQuietlyOnClosedPipe(
  { out: process.stdout, err: process.stderr },
  (code) => process.exit(code),
  (message) => process.stderr.write(`${message}\n`),
  () => finished,
);
// no top-level await: the bundled program is a CommonJS module, which cannot hold one
void runCli(process.argv.slice(2), processIo()).then((code) => {
  finished = code;
  process.exitCode = code;
  // the command is over; a timer or socket a library left behind (an exporter still retrying a
  // collector that is gone) must not hold the prompt back, so it gets a moment and no more
  setTimeout(() => process.exit(code), LINGER_MS).unref();
});
