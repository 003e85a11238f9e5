import { describe, expect, it } from 'vitest';
import { parseConfigForMode } from './index.js';
import { configWarnings } from './warnings.js';

const parse = (text: string) => parseConfigForMode({ text, name: 'agent.yaml' }, 'info');

describe('configWarnings', () => {
  it('warns that telemetry is not exported when it is enabled, and only then', () => {
    const on = configWarnings(parse('telemetry: {enabled: true}\n'));
    expect(on).toContainEqual({ key: 'telemetry.enabled', message: expect.stringContaining('nothing is exported yet') as string });
    expect(configWarnings(parse('telemetry: {enabled: false}\n')).map((w) => w.key)).not.toContain('telemetry.enabled');
  });
});
