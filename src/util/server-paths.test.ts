import { describe, expect, it } from 'vitest';
import { PATH_PLACEHOLDER, withoutPaths } from './server-paths.js';

describe('withoutPaths', () => {
  it('replaces absolute, home and dot-relative paths, keeping the sentence around them', () => {
    expect(withoutPaths('run not found: "a2a-1" in /srv/fisk/state/runs')).toBe(`run not found: "a2a-1" in ${PATH_PLACEHOLDER}`);
    expect(withoutPaths('cannot write run "x" in /var/lib/runs: ENOSPC: no space left on device, write')).toBe(
      `cannot write run "x" in ${PATH_PLACEHOLDER}: ENOSPC: no space left on device, write`,
    );
    expect(withoutPaths('corrupt record sequence: /tmp/runs/c.json line 3')).toBe(`corrupt record sequence: ${PATH_PLACEHOLDER} line 3`);
    expect(withoutPaths('see ~/.config/nats/context/lab.json.')).toBe(`see ${PATH_PLACEHOLDER}.`);
    expect(withoutPaths('open "./state/x.lock" failed')).toBe(`open "${PATH_PLACEHOLDER}" failed`);
  });

  it('leaves URLs, subjects, ratios and plain words alone', () => {
    for (const text of [
      'POST https://api.example.com/v1/messages: 529',
      'no reply on choria.fisk-ai.tool.ops within 3000 ms',
      'tokens 10/20',
      'and/or',
      'nats://127.0.0.1:4222',
    ]) {
      expect(withoutPaths(text)).toBe(text);
    }
  });
});
