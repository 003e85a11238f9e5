#!/usr/bin/env node
import { endQuietlyOnClosedPipe, processIo } from './io.js';
import { runCli } from './program.js';

endQuietlyOnClosedPipe(
  { out: process.stdout, err: process.stderr },
  (code) => process.exit(code),
  (message) => process.stderr.write(`${message}\n`),
);
const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
