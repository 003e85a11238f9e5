import { describe, expect, it } from 'vitest';
import { parseConfigForMode } from './index.js';
import { configWarnings } from './warnings.js';

const parse = (text: string) => parseConfigForMode({ text, name: 'agent.yaml' }, 'info');

describe('configWarnings', () => {
  it('has no warning for enabled telemetry, which exports', () => {
    expect(configWarnings(parse('telemetry: {enabled: true}\n')).map((w) => w.key)).not.toContain('telemetry.enabled');
  });

  it('warns that a card cannot send callers to every interface, until public_url is set', () => {
    const open = configWarnings(parse('expose: {agent: {a2a_http: {port: 8443, address: 0.0.0.0, auth_token_env: T}}}\n'));
    expect(open.map((w) => w.key)).toEqual(['expose.agent.a2a_http.public_url']);
    expect(open[0]?.message).toContain('http://0.0.0.0:8443/, which they cannot reach');
    expect(configWarnings(parse('expose: {agent: {a2a_http: {port: 8443, address: "::", auth_token_env: T}}}\n'))[0]?.message).toContain('http://[::]:8443/');
    expect(configWarnings(parse('expose: {agent: {a2a_http: {port: 8443, address: 0.0.0.0, auth_token_env: T, public_url: "https://a.example/"}}}\n'))).toEqual([]);
    expect(configWarnings(parse('expose: {agent: {a2a_http: {port: 8443}}}\n'))).toEqual([]);
  });
});
