/**
 * A configuration given as a pipe (`--config <(...)`) can be read only once: the application's
 * early start must leave it to the check, which reads the whole configuration from it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, ROOT } from './support.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'fisk-config-pipe-'));
  writeFileSync(
    join(dir, 'agent.yaml'),
    `identity: piped\napplication_path: ${join(ROOT, 'test/fixtures/fisk-app.mjs')}\nsystem_prompt: Answer.\n`,
  );
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a configuration read from a pipe', () => {
  it('is read whole by fisk info, application and all', () => {
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${MAIN}" info --config <(cat agent.yaml)`], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'], NO_COLOR: '1' },
    });
    expect(r.stderr).not.toContain('configuration error');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Agent piped (identity set in the file)');
    expect(r.stdout).toContain('stream_ls');
  });
});
