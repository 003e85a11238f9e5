import { describe, expect, it } from 'vitest';
import { fakeTool } from '../../toolkit/test-tools.js';
import type { Tool } from '../../toolkit/tool.js';
import { confirmNote } from './notes.js';

const plain = fakeTool('list_things', { tags: ['ai:read_only'] });
const confirmed = fakeTool('purge', { confirm: { trigger: 'ai:confirm' } });
const byConfirmTag = fakeTool('rewrite', { tags: ['impact:rw'] });
const unknownGate: Tool = Object.create(plain, {
  name: { value: 'opaque' },
  capabilities: { value: { ...plain.capabilities, gate: null } },
}) as Tool;

describe('the confirm_over_mcp startup warning', () => {
  it('is not given when no served tool is gated, whatever the setting', () => {
    for (const mode of ['auto', 'never', 'always'] as const) expect(confirmNote(mode, [plain], [])).toBeUndefined();
    expect(confirmNote('auto', [], [])).toBeUndefined();
  });

  it('names the gated tools under auto and never, by their own gate or a harness.confirm_tags tag', () => {
    const auto = confirmNote('auto', [plain, confirmed, byConfirmTag], ['impact:rw']);
    expect(auto).toMatchObject({ level: 'warning', key: 'expose.agent.mcp.confirm_over_mcp' });
    expect(auto?.message).toMatch(/^confirm_over_mcp is auto: confirm-gated tools \(purge, rewrite\) run ungated/);
    expect(confirmNote('never', [confirmed], [])?.message).toMatch(
      /^confirm_over_mcp is never: confirm-gated tools \(purge\) run without asking/,
    );
    expect(confirmNote('always', [confirmed], [])).toBeUndefined();
  });

  it('counts a tool that cannot report its gate as gated', () => {
    expect(confirmNote('auto', [unknownGate], [])?.message).toMatch(/\(opaque\)/);
  });
});
