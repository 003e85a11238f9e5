#!/usr/bin/env node
/**
 * The client under test for the MCP conformance suite's client scenarios: fisk-ai's own MCP
 * client, from the built dist, driven the way a run drives it. The suite starts a server per
 * scenario and runs `node client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO (and, for some
 * scenarios, MCP_CONFORMANCE_CONTEXT) set.
 *
 * The scenario's server is written into an agent.yaml `mcp_clients` entry and parsed by the real
 * configuration funnel; OAuth scenarios get an `oauth` block (with the pre-registered client, the
 * client credentials or private key, or the identity provider and ID token the context carries). The sessions are opened by `openMcpSessions` with a
 * loopback authorizer, the same one `fisk mcp login` uses, whose "browser" follows the
 * authorization URL back to the loopback redirect as a person clicking "allow" would. Every tool
 * listed is then called through the tool fisk-ai builds for it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { parseConfigForMode } = await import(join(ROOT, 'dist', 'config', 'index.js'));
const { openMcpSessions, openLoopbackAuthorizer } = await import(join(ROOT, 'dist', 'mcp', 'client', 'index.js'));

/** The client ID metadata document the suite's CIMD scenario expects a client to offer. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (url === undefined || scenario === '') {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node client.mjs <server-url>');
  process.exit(2);
}
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');

function oauthBlock() {
  if (!scenario.startsWith('auth/')) return undefined;
  if (scenario === 'auth/client-credentials-basic') {
    return { grant: 'client_credentials', client_id: context.client_id, client_secret_env: 'CONFORMANCE_CLIENT_SECRET' };
  }
  if (scenario === 'auth/client-credentials-jwt') {
    return {
      grant: 'client_credentials',
      client_id: context.client_id,
      private_key_env: 'CONFORMANCE_PRIVATE_KEY',
      signing_algorithm: context.signing_algorithm,
    };
  }
  if (scenario === 'auth/cross-app-access-complete-flow') {
    const idp = { token_endpoint: context.idp_token_endpoint, client_id: context.idp_client_id, id_token_env: 'CONFORMANCE_ID_TOKEN' };
    return { grant: 'cross_app_access', client_id: context.client_id, client_secret_env: 'CONFORMANCE_CLIENT_SECRET', idp };
  }
  if (scenario === 'auth/pre-registration') {
    return { client_id: context.client_id, client_secret_env: 'CONFORMANCE_CLIENT_SECRET' };
  }
  return { client_metadata_url: CLIENT_METADATA_URL };
}

const state = mkdtempSync(join(tmpdir(), 'fisk-conformance-'));
const SECRETS = {
  CONFORMANCE_CLIENT_SECRET: context.client_secret,
  CONFORMANCE_PRIVATE_KEY: context.private_key_pem,
  CONFORMANCE_ID_TOKEN: context.idp_id_token,
};
const env = { ...process.env, XDG_STATE_HOME: state };
for (const [name, value] of Object.entries(SECRETS)) env[name] = value ?? '';
const oauth = oauthBlock();
const yaml = JSON.stringify({ mcp_clients: [{ name: 'conformance', url, ...(oauth === undefined ? {} : { oauth }) }] });
const config = parseConfigForMode({ text: yaml, name: 'agent.yaml' }, 'info');

/** A browser that clicks "allow": follows the authorization server's redirect to the loopback listener. */
const browser = {
  show: (authorizationUrl) => console.error(`authorizing at ${authorizationUrl.origin}${authorizationUrl.pathname}`),
  open: (authorizationUrl) => {
    void (async () => {
      try {
        const res = await fetch(authorizationUrl, { redirect: 'manual' });
        const location = res.headers.get('location');
        if (location !== null) await (await fetch(location)).text();
      } catch (err) {
        console.error(`the browser could not follow the authorization: ${err instanceof Error ? err.message : String(err)}`);
      }
    })();
  },
};

const stop = new AbortController();
const standing = await openLoopbackAuthorizer(0, undefined, browser, stop.signal);
let failed = false;
try {
  const set = await openMcpSessions(config.mcpClients, { env, credentialEnvNames: Object.keys(SECRETS), authorizer: standing.authorizer });
  try {
    for (const source of set.sources()) {
      for (const tool of source.tools) {
        const args = tool.name === 'add_numbers' ? { a: 2, b: 3 } : {};
        const outcome = await tool.execute(JSON.stringify(args), {}, stop.signal);
        console.error(`called ${tool.name}: ${outcome.status}${outcome.status === 'completed' && outcome.isError ? ' (error)' : ''}`);
        if (outcome.status === 'completed' && outcome.isError) failed = true;
      }
    }
  } finally {
    await set.close();
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  failed = true;
} finally {
  stop.abort();
  await standing.close();
  rmSync(state, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
