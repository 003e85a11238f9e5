import { describe, expect, it } from 'vitest';
import { captureIo } from '../test-io.js';
import type { SandboxLimits } from '../../config/index.js';
import { renderSandbox } from './info-sandbox.js';

const text = (given: Partial<SandboxLimits>): string => {
  const limits: SandboxLimits = { addressSpace: undefined, cpuSeconds: undefined, openFiles: undefined, ...given };
  const io = captureIo();
  renderSandbox({ enabled: true, bwrap: '/usr/bin/bwrap', hide: ['/home/u/.ssh'], limits }, io.out);
  return io.stdout();
};

describe('the Sandbox section of fisk info', () => {
  it('shows sizes in the units agent.yaml takes, and bytes only when no unit divides them', () => {
    expect(text({ addressSpace: 2 * 2 ** 30, cpuSeconds: 60, openFiles: 256 })).toContain(
      '  Limits      address space 2GiB, CPU 60s, 256 open files',
    );
    expect(text({ addressSpace: 1536 * 2 ** 20 })).toContain('address space 1536MiB');
    expect(text({ addressSpace: 16 * 2 ** 20 + 1 })).toContain(`address space ${16 * 2 ** 20 + 1} bytes`);
    expect(text({})).toContain('  Limits      none (as inherited)');
  });

  it('names what the sandbox applies to', () => {
    expect(text({})).toContain('  Applies to  application commands, the --fisk-introspect run and sandboxed stdio MCP servers');
  });
});
