#!/usr/bin/env node
import { endQuietlyOnClosedPipe, processIo } from './io.js';
import { runCli } from './program.js';

endQuietlyOnClosedPipe(
  { out: process.stdout, err: process.stderr },
  (code) => process.exit(code),
  (message) => process.stderr.write(`${message}\n`),
);
// no top-level await: the bundled program is a CommonJS module, which cannot hold one
void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
