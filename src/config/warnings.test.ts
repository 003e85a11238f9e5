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
    expect(configWarnings(parse('expose: {agent: {a2a_http: {port: 8443, address: "::", auth_token_env: T}}}\n'))[0]?.message).toContain(
      'http://[::]:8443/',
    );
    expect(
      configWarnings(
        parse('expose: {agent: {a2a_http: {port: 8443, address: 0.0.0.0, auth_token_env: T, public_url: "https://a.example/"}}}\n'),
      ),
    ).toEqual([]);
    expect(configWarnings(parse('expose: {agent: {a2a_http: {port: 8443}}}\n'))).toEqual([]);
  });

  it('warns of harness.sandbox keys that widen a sandbox which is off, naming each', () => {
    const off = configWarnings(parse('harness: {sandbox: {network: true, writable: [out], tools: [{tools: [x], network: true}]}}\n'));
    expect(off.map((w) => w.key)).toEqual(['harness.sandbox.network', 'harness.sandbox.writable', 'harness.sandbox.tools']);
    expect(off[0]?.message).toContain('has no effect while harness.sandbox.enabled is false');
    expect(configWarnings(parse('harness: {sandbox: {enabled: true, network: true, writable: [out]}}\n'))).toEqual([]);
    // limits and hide also reach a stdio server sandboxed on its own, so they earn no warning
    expect(configWarnings(parse('harness: {sandbox: {hide: ["~/.ssh"], limits: {cpu_seconds: 5}}}\n'))).toEqual([]);
  });
});
