import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive, loggedPids, until } from '../../../test/support/processes.js';
import { captureIo } from '../test-io.js';
import { prepareRun } from './run-prepare.js';
import type { RunFlags } from './run-options.js';

const app = fileURLToPath(new URL('../../../test/fixtures/fisk-app.mjs', import.meta.url));
let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-prepare-'));
  writeFileSync(
    join(dir, 'agent.yaml'),
    `identity: early\napplication_path: ${app}\nsystem_prompt: You look around.\nllm:\n  provider: anthropic\n  model: m-1\n`,
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('preparing a run', () => {
  it('starts nothing more after a Ctrl-C that lands while the configuration loads, and stops what it started', async () => {
    const io = captureIo({ PATH: process.env['PATH'], FIXTURE_PIDLOG: join(dir, 'pids'), FIXTURE_MODE: 'hang' }, dir);
    let removed = false;
    // the interrupt arrives as soon as the handler is installed: before the configuration is read
    const prepared = await prepareRun(['hello'], { config: 'agent.yaml' } as RunFlags, io, {
      onInterrupt: (handler) => {
        queueMicrotask(handler);
        return () => {
          removed = true;
        };
      },
    });
    expect(prepared.loading.aborted).toBe(true);
    expect(prepared.introspection).toBeUndefined();
    prepared.stopLoading();
    expect(removed).toBe(true);
    // the application started from the file may have logged its pid before it was killed; it is gone, and no other started
    const pids = loggedPids(join(dir, 'pids'));
    expect(pids.length).toBeLessThanOrEqual(1);
    for (const pid of pids) await until(() => !alive(pid), 'the early application to be stopped');
  });
});
