import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../../config/index.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import { exposedWarning, resolveAuthToken, resolveListenAddress } from './mcp.js';

const PID_APP = fileURLToPath(new URL('../../../test/mcp/fixtures/pid-app.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function agent(yaml: string): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-cli-'));
  dirs.push(dir);
  const config = join(dir, 'agent.yaml');
  writeFileSync(config, yaml);
  return { dir, config };
}

async function mcp(yaml: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; err: string }> {
  const a = agent(yaml);
  const io = captureIo(env, a.dir);
  const code = await runCli(['mcp', '--config', a.config, ...args], io);
  return { code, err: io.stderr() };
}

function mcpBlock(yaml: string): NonNullable<ReturnType<typeof parseConfigForMode>['expose']['mcp']> {
  const block = parseConfigForMode({ text: yaml }, 'mcp').expose.mcp;
  if (block === undefined) throw new Error('no mcp block');
  return block;
}

describe('fisk mcp refuses to start', () => {
  it('without an expose.agent.mcp block, naming the key', async () => {
    const r = await mcp(`identity: t\napplication_path: ${PID_APP}\n`);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/expose\.agent\.mcp/);
  });

  it('with a built-in that may not be served, naming the key', async () => {
    const r = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {builtins: [memory_read]}}}\n`);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/expose\.agent\.mcp\.builtins/);
  });

  it('with a negative concurrency cap or timeout, naming the key', async () => {
    const c = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {max_concurrent_tools: -1}}}\n`);
    expect(c.code).toBe(EXIT.config);
    expect(c.err).toMatch(/expose\.agent\.mcp\.max_concurrent_tools/);
    const t = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {tool_timeout: -1s}}}\n`);
    expect(t.code).toBe(EXIT.config);
    expect(t.err).toMatch(/expose\.agent\.mcp\.tool_timeout/);
  });

  it('with nothing left to serve, naming what to check', async () => {
    const r = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {}, tools: {exclude: {tools: ['.']}}}}\n`, [
      '--port',
      '1',
    ]);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/no tools are left to serve after filtering; check include\/exclude and expose\.agent\.tools/);
  });

  it('with an invalid expose.agent.tools pattern, naming the key', async () => {
    const r = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {}, tools: {include: {tools: ['(']}}}}\n`, [
      '--port',
      '1',
    ]);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/expose\.agent\.tools\.include\.tools/);
  });

  it('with a bad --port or FISK_AI_MCP_PORT, naming it', async () => {
    const flag = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {}}}\n`, ['--port', 'http']);
    expect(flag.code).toBe(EXIT.usage);
    expect(flag.err).toMatch(/--port must be a TCP port/);
    const env = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {}}}\n`, [], { FISK_AI_MCP_PORT: '70000' });
    expect(env.code).toBe(EXIT.usage);
    expect(env.err).toMatch(/FISK_AI_MCP_PORT must be a TCP port/);
  });
});

describe('fisk mcp with knowledge', () => {
  it('refuses a relative FISK_AI_STORE_DIR, naming it', async () => {
    const r = await mcp(
      `identity: t\napplication_path: ${PID_APP}\nharness: {knowledge: {enabled: true}}\nexpose: {agent: {mcp: {builtins: [knowledge_search]}}}\n`,
      ['--port', '1'],
      { FISK_AI_STORE_DIR: 'relative/dir' },
    );
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/FISK_AI_STORE_DIR is .*, a relative path/);
  });

  it('refuses an embeddings key variable that is not set, naming the key', async () => {
    const yaml = `identity: t\napplication_path: ${PID_APP}\nharness: {knowledge: {enabled: true, embeddings: {base_url: 'http://127.0.0.1:9', model: m, api_key_env: FISK_TEST_UNSET_KEY}}}\nexpose: {agent: {mcp: {builtins: [knowledge_search]}}}\n`;
    const r = await mcp(yaml, ['--port', '1']);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/harness\.knowledge\.embeddings\.api_key_env names FISK_TEST_UNSET_KEY/);
  });
});

describe('resolveListenAddress', () => {
  const fromFile = mcpBlock('expose: {agent: {mcp: {port: 9001, address: 0.0.0.0}}}');
  const empty = mcpBlock('expose: {agent: {mcp: {}}}');

  it('defaults to 127.0.0.1:8080', () => {
    expect(resolveListenAddress({}, {}, empty)).toEqual({ host: '127.0.0.1', port: 8080 });
  });
  it('takes the file over the default', () => {
    expect(resolveListenAddress({}, {}, fromFile)).toEqual({ host: '0.0.0.0', port: 9001 });
  });
  it('takes the environment over the file', () => {
    expect(resolveListenAddress({}, { FISK_AI_MCP_PORT: '9100', FISK_AI_MCP_ADDRESS: '::1' }, fromFile)).toEqual({
      host: '::1',
      port: 9100,
    });
  });
  it('takes the flags over the environment', () => {
    expect(
      resolveListenAddress({ port: '9200', address: 'localhost' }, { FISK_AI_MCP_PORT: '9100', FISK_AI_MCP_ADDRESS: '::1' }, fromFile),
    ).toEqual({ host: 'localhost', port: 9200 });
  });
});

describe('the served token', () => {
  const tokened = mcpBlock('expose: {agent: {mcp: {auth_token_env: SERVED_TOKEN}}}');

  it('is read from the variable auth_token_env names, trimmed', () => {
    expect(resolveAuthToken(tokened, { SERVED_TOKEN: ' 0123456789abcdef0123 \n' })).toBe('0123456789abcdef0123');
    expect(resolveAuthToken(mcpBlock('expose: {agent: {mcp: {}}}'), { SERVED_TOKEN: '0123456789abcdef' })).toBeUndefined();
  });

  it('refuses a variable that is not set, empty or too short, naming it and never printing it', () => {
    expect(() => resolveAuthToken(tokened, {})).toThrow(/auth_token_env names SERVED_TOKEN, which is not set or empty/);
    expect(() => resolveAuthToken(tokened, { SERVED_TOKEN: '   ' })).toThrow(/SERVED_TOKEN, which is not set or empty/);
    let message = '';
    try {
      resolveAuthToken(tokened, { SERVED_TOKEN: 'short-one' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/SERVED_TOKEN \(named by expose\.agent\.mcp\.auth_token_env\) holds a token shorter than 16 characters/);
    expect(message).not.toContain('short-one');
  });

  it('is warned about off loopback only', () => {
    expect(exposedWarning('127.0.0.1')).toBeUndefined();
    expect(exposedWarning('::1')).toBeUndefined();
    expect(exposedWarning('0.0.0.0')).toMatch(/not a loopback address/);
    expect(exposedWarning('10.1.2.3')).toMatch(/plain HTTP/);
  });

  it('is required to serve off loopback: fisk mcp refuses before opening anything, naming the key', async () => {
    const r = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {address: 0.0.0.0}}}\n`, ['--port', '1']);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/refusing to serve on 0\.0\.0\.0.*expose\.agent\.mcp\.auth_token_env/);
    const flag = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {}}}\n`, [
      '--port',
      '1',
      '--address',
      '192.0.2.1',
    ]);
    expect(flag.code).toBe(EXIT.config);
    expect(flag.err).toMatch(/refusing to serve on 192\.0\.2\.1/);
  });

  it('names an unset variable as a configuration error', async () => {
    const r = await mcp(`identity: t\napplication_path: ${PID_APP}\nexpose: {agent: {mcp: {auth_token_env: FISK_TEST_UNSET_TOKEN}}}\n`, [
      '--port',
      '1',
    ]);
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(/FISK_TEST_UNSET_TOKEN, which is not set or empty/);
  });
});

describe('fisk mcp with imported tools configured', () => {
  it('says that mcp_clients and remote_tools are not served', async () => {
    const { mcpNotes } = await import('../../mcp/index.js');
    const config = parseConfigForMode(
      {
        text: `identity: t\napplication_path: ${PID_APP}\nnats_context: x\nmcp_clients: [{name: fs, command: some-mcp-server, confirm: always}]\nremote_tools: [{name: peer}]\nexpose: {agent: {mcp: {}}}\n`,
      },
      'mcp',
    );
    const notes = mcpNotes(config).filter((n) => n.key === 'mcp_clients' || n.key === 'remote_tools');
    expect(notes.map((n) => n.message)).toEqual([
      expect.stringMatching(/^mcp_clients are not served over MCP/),
      expect.stringMatching(/^remote_tools are not served over MCP/),
    ]);
  });
});
