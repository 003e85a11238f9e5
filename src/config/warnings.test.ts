import { describe, expect, it } from 'vitest';
import { parseConfigForMode } from './index.js';
import { configWarnings } from './warnings.js';

const parse = (text: string) => parseConfigForMode({ text, name: 'agent.yaml' }, 'info');

describe('configWarnings', () => {
  it('has no warning for enabled telemetry, which exports', () => {
    expect(configWarnings(parse('telemetry: {enabled: true}\n')).map((w) => w.key)).not.toContain('telemetry.enabled');
  });
});
