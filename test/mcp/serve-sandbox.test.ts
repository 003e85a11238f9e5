// End to end: the official SDK client over real HTTP against a real `fisk mcp` whose
// configuration turns the sandbox on: a served call runs inside it exactly as a run's does.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, resultText } from '../../src/mcp/server/test-support.js';
import { agentDir, ensureBuilt, startFiskMcp } from './support.js';
import type { FiskMcp } from './support.js';

const APP = fileURLToPath(new URL('../fixtures/sandbox-app.mjs', import.meta.url));

describe('fisk mcp with harness.sandbox', () => {
  let server: FiskMcp;
  let agent: ReturnType<typeof agentDir>;
  let outside: string;
  let client: Client;

  beforeAll(async () => {
    ensureBuilt();
    // outside /tmp, which every sandboxed child has a private copy of
    outside = mkdtempSync('/var/tmp/fisk-mcp-sandbox-');
    agent = agentDir(
      `identity: boxed\napplication_path: ${APP}\nharness:\n  sandbox:\n    enabled: true\nexpose:\n  agent:\n    mcp: {}\n`,
    );
    server = await startFiskMcp(agent.config, agent.dir);
    client = await connectClient(server.url);
  }, 240_000);

  afterAll(async () => {
    await client.close();
    await server.kill();
    agent.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  it('runs a served call inside the sandbox: a write outside the work directory fails and leaves nothing', async () => {
    const target = join(outside, 'escaped.txt');
    const refused = resultText(await client.callTool({ name: 'write', arguments: { path: target } }));
    expect(refused).toMatch(/failed EROFS/);
    expect(existsSync(target)).toBe(false);
    const kept = join(agent.dir, 'kept.txt');
    expect(resultText(await client.callTool({ name: 'write', arguments: { path: kept } }))).toMatch(/wrote/);
    expect(existsSync(kept)).toBe(true);
  });
});
