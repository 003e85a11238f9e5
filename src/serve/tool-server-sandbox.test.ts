/** A command lent through `fisk serve`'s tool server runs inside the runtime's sandbox, as a run's call does. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A2aClient, InprocBus, createTransport } from '../a2a/index.js';
import { parseConfigForMode } from '../config/index.js';
import { openRuntime } from '../host/index.js';
import { startToolServer } from './tool-server.js';

const APP = resolve(import.meta.dirname, '../../test/fixtures/sandbox-app.mjs');

let work: string;
let outside: string;
beforeEach(() => {
  // both outside /tmp, which a sandboxed child has a private copy of
  work = mkdtempSync('/var/tmp/fisk-lend-sandbox-work-');
  outside = mkdtempSync('/var/tmp/fisk-lend-sandbox-outside-');
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('a lent command with harness.sandbox', () => {
  it('writes in the work directory and nowhere else', async () => {
    const config = parseConfigForMode(
      {
        text: `identity: lender\napplication_path: ${APP}\nnats_context: unused\nharness:\n  sandbox:\n    enabled: true\nexpose:\n  agent:\n    a2a:\n      serve_tools: true\n`,
      },
      'serve',
    );
    const runtime = await openRuntime(config, 'lend', { env: { PATH: process.env['PATH'] } });
    const bus = new InprocBus();
    try {
      const server = await startToolServer(runtime, { version: '1.0.0', workDir: work, transport: createTransport('inproc', { bus }) });
      const client = new A2aClient(createTransport('inproc', { bus }), 'borrower');
      const escaped = join(outside, 'escaped.txt');
      expect((await client.callTool('lender', 'write', { path: escaped })).output).toMatch(/failed EROFS/);
      expect(existsSync(escaped)).toBe(false);
      expect((await client.callTool('lender', 'write', { path: join(work, 'kept.txt') })).output).toMatch(/wrote/);
      expect(existsSync(join(work, 'kept.txt'))).toBe(true);
      await server.drain();
    } finally {
      await runtime.close();
    }
  });
});
