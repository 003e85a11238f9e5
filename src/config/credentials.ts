import type { Config } from './types.js';
import { STANDING_CREDENTIAL_ENV_NAMES } from '../util/credential-names.js';

export {
  OTLP_CREDENTIAL_ENV_NAMES,
  PROVIDER_CREDENTIAL_ENV_NAMES,
  SLACK_CREDENTIAL_ENV_NAMES,
  STANDING_CREDENTIAL_ENV_NAMES,
} from '../util/credential-names.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** The user information of a URL (`user:pass` in `https://user:pass@host/`). */
const USERINFO = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^@/?#]*)@/;

/** The variable names a `${VAR}` template refers to. */
export function referencedVariables(template: string): string[] {
  return [...template.matchAll(REFERENCE)].map((m) => m[1] ?? '');
}

/**
 * Every environment variable a tool subprocess must not inherit for this configuration: the
 * provider, OTLP and Slack credentials, the embeddings key variable when the vector tier is on,
 * every variable an MCP client's url, headers or env refer to, every OAuth client secret,
 * private key, identity-provider secret and ID token variable, the variable holding the token
 * `fisk mcp` clients must send, the bearer token variable of `expose.agent.a2a_http`, and every
 * variable a `remote_agents` entry's headers refer to. A value given to one MCP server is that server's alone:
 * the server gets it under the name its entry's `env` gives it, and every other child
 * (application commands, introspection, other servers) goes without.
 * Sorted and deduplicated.
 */
export function credentialEnvNames(config: Config): string[] {
  const names = new Set<string>(STANDING_CREDENTIAL_ENV_NAMES);
  const k = config.harness.knowledge;
  if (k.enabled && k.embeddings?.apiKeyEnv !== undefined) names.add(k.embeddings.apiKeyEnv);
  for (const client of config.mcpClients) {
    for (const v of [client.url ?? '', ...Object.values(client.headers), ...Object.values(client.env)]) {
      for (const name of referencedVariables(v)) names.add(name);
    }
    const o = client.oauth;
    for (const name of [o?.clientSecretEnv, o?.privateKey?.env, o?.idp?.clientSecretEnv, o?.idp?.idTokenEnv]) {
      if (name !== undefined) names.add(name);
    }
  }
  const served = config.expose.mcp?.authTokenEnv;
  if (served !== undefined) names.add(served);
  // the bearer token A2A callers present guards the agent itself: no tool needs it
  const a2aToken = config.expose.a2aHttp?.authTokenEnv;
  if (a2aToken !== undefined) names.add(a2aToken);
  for (const agent of config.remoteAgents) {
    for (const v of Object.values(agent.headers)) for (const name of referencedVariables(v)) names.add(name);
  }
  return [...names].sort();
}

/** A credential written in agent.yaml itself, by the key that holds it. */
export interface CredentialLiteral {
  readonly key: string;
  readonly value: string;
}

/**
 * The credential text `agent.yaml` spells out rather than naming a variable: every part of a
 * `remote_agents` or `mcp_clients` header value outside its `${VAR}` references (the whole value
 * when it has none), and the user information of an MCP server's `url` (`user:pass@`). A header is
 * how a peer or a server is told who is calling, so what is written there is that party's alone and
 * is scrubbed like a credential variable's value; the variables it names are scrubbed by name. An
 * MCP server's `env` is not: it mostly holds settings, and a secret belongs in it as `${VAR}`.
 */
export function credentialLiterals(config: Config): CredentialLiteral[] {
  const out: CredentialLiteral[] = [];
  const spelled = (key: string, template: string): void => {
    for (const piece of template.split(REFERENCE).filter((_, j) => j % 2 === 0)) {
      if (piece.trim() !== '') out.push({ key, value: piece });
    }
  };
  config.remoteAgents.forEach((agent, i) => {
    for (const [name, template] of Object.entries(agent.headers)) spelled(`remote_agents[${i}].headers.${name}`, template);
  });
  config.mcpClients.forEach((client, i) => {
    for (const [name, template] of Object.entries(client.headers)) spelled(`mcp_clients[${i}].headers.${name}`, template);
    // the password when there is one; a user name alone is the token (https://TOKEN@host/)
    const userinfo = USERINFO.exec(client.url ?? '')?.[1];
    if (userinfo !== undefined)
      spelled(`mcp_clients[${i}].url`, userinfo.includes(':') ? userinfo.slice(userinfo.indexOf(':') + 1) : userinfo);
  });
  return out;
}

/** A file holding a credential, by the key that names it. */
export interface CredentialFile {
  readonly key: string;
  readonly path: string;
}

/**
 * The files `agent.yaml` names as holding credentials (an MCP client's private key, an identity
 * provider's ID token): no variable carries them, so their contents are scrubbed by file.
 */
export function credentialFiles(config: Config): CredentialFile[] {
  const out: CredentialFile[] = [];
  config.mcpClients.forEach((client, i) => {
    const o = client.oauth;
    if (o?.privateKey?.file !== undefined) out.push({ key: `mcp_clients[${i}].oauth.private_key_file`, path: o.privateKey.file });
    if (o?.idp?.idTokenFile !== undefined) out.push({ key: `mcp_clients[${i}].oauth.idp.id_token_file`, path: o.idp.idTokenFile });
  });
  return out;
}
