import { describe, expect, it } from 'vitest';
import { parseConfigForMode } from './index.js';

const parse = (text: string) => parseConfigForMode({ text, name: 'agent.yaml', baseDir: '/srv/agent' }, 'info');

describe('harness.sandbox', () => {
  it('is off by default, with no network, the work directory writable and the default hidden set', () => {
    const c = parse('identity: a');
    expect(c.harness.sandbox).toEqual({
      enabled: false,
      network: false,
      writable: undefined,
      hide: undefined,
      limits: { addressSpace: undefined, cpuSeconds: undefined, openFiles: undefined },
      tools: [],
    });
  });

  it('resolves relative paths against the directory of agent.yaml and keeps ~/ for the child HOME', () => {
    const c = parse(
      'harness:\n  sandbox:\n    enabled: true\n    writable: [out, /var/cache/app, "~/scratch"]\n    hide: ["~/.ssh", secrets/]\n    limits: {address_space: 2GiB, cpu_seconds: 30, open_files: 256}\n    tools:\n      - {tools: ["^fetch_"], network: true, writable: [downloads]}\n',
    );
    expect(c.harness.sandbox).toEqual({
      enabled: true,
      network: false,
      writable: ['/srv/agent/out', '/var/cache/app', '~/scratch'],
      hide: ['~/.ssh', '/srv/agent/secrets'],
      limits: { addressSpace: 2 * 1024 ** 3, cpuSeconds: 30, openFiles: 256 },
      tools: [{ tools: ['^fetch_'], network: true, writable: ['/srv/agent/downloads'] }],
    });
  });

  it('runs stdio MCP servers sandboxed by default when the sandbox is on, and never http ones', () => {
    const c = parse(
      'harness: {sandbox: {enabled: true}}\nmcp_clients:\n  - {name: a, command: x}\n  - {name: b, command: x, sandbox: false}\n  - {name: c, command: x, network: true, writable: [w]}\n  - {name: d, url: "https://mcp.example.com"}\n',
    );
    expect(c.mcpClients.map((m) => m.sandbox)).toEqual([
      { enabled: true, network: false, writable: undefined },
      { enabled: false, network: false, writable: undefined },
      { enabled: true, network: true, writable: ['/srv/agent/w'] },
      { enabled: false, network: false, writable: undefined },
    ]);
  });

  it('lets one stdio server be sandboxed while the harness sandbox is off', () => {
    const c = parse('mcp_clients: [{name: a, command: x, sandbox: true}]');
    expect(c.mcpClients[0]?.sandbox.enabled).toBe(true);
    expect(c.harness.sandbox.enabled).toBe(false);
  });
});
