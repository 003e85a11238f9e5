/**
 * `fisk discover <agent>`: fetches a peer's agent card over NATS and prints it, with each tool's
 * parameters; given the URL of an A2A agent card it reads that card over HTTP and prints it the
 * same way, with its skills. Everything printed comes from the peer, so control sequences are
 * stripped first.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import type { AgentCard } from '@a2a-js/sdk';
import type { DiscoveryReplyMessage } from '../../a2a/index.js';
import { stripControl } from '../../agent/sanitize.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';

interface DiscoverFlags {
  readonly config: string;
  readonly context?: string;
  /** The name `fisk run` gives the same flag. */
  readonly natsContext?: string;
  readonly timeout?: string;
}

/** The sender identity when no configuration is read. */
const ANONYMOUS = 'fisk-ai';

function parameters(schema: Readonly<Record<string, unknown>> | undefined): string[] {
  const props = schema?.['properties'];
  if (typeof props !== 'object' || props === null) return [];
  const required = new Set(
    Array.isArray(schema?.['required']) ? (schema['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : [],
  );
  return Object.entries(props as Record<string, unknown>).map(([name, p]) => {
    const def = typeof p === 'object' && p !== null ? (p as Record<string, unknown>) : {};
    const type = typeof def['type'] === 'string' ? def['type'] : Array.isArray(def['type']) ? (def['type'] as unknown[]).join('|') : 'any';
    const desc = typeof def['description'] === 'string' ? ` - ${def['description']}` : '';
    return stripControl(`${name} (${type}${required.has(name) ? ', required' : ''})${desc}`);
  });
}

/** The card as text, one line per fact. */
export function renderCard(agent: string, card: DiscoveryReplyMessage): string[] {
  const lines = [
    `Agent card for ${stripControl(agent)}`,
    '',
    `  Agent:       ${stripControl(card.name)}`,
    `  Version:     ${stripControl(card.version)}`,
    `  Description: ${card.description !== undefined && card.description !== '' ? stripControl(card.description) : '(none)'}`,
    `  Protocols:   ${(card.protocols ?? []).map(stripControl).join(', ') || '(none)'}`,
    '',
  ];
  const tools = card.tools ?? [];
  if (tools.length === 0) return [...lines, 'The agent exposes no tools.'];
  lines.push(`Tools (${tools.length}):`);
  for (const t of tools) {
    lines.push('', `  ${stripControl(t.name)}`);
    for (const l of stripControl(t.description ?? '').split('\n')) lines.push(`    ${l}`);
    const params = parameters(t.input_schema);
    lines.push(params.length === 0 ? '    parameters: none' : '    parameters:');
    for (const p of params) lines.push(`      ${p}`);
  }
  return lines;
}

/** A card read off the wire may lack what its type promises: each list and word is read with a default. */
function listOf<T>(value: readonly T[] | undefined): readonly T[] {
  return value ?? [];
}

function wordOf(value: string | undefined): string {
  return value ?? '';
}

/** The security schemes a card names, so a caller knows to send credentials (remote_agents[].headers). */
function authOf(card: AgentCard): string {
  const schemes = Object.keys(card.securitySchemes ?? {});
  if (schemes.length === 0) return 'none declared';
  return `${stripControl(schemes.join(', '))} (send it with remote_agents[].headers, for example Authorization: Bearer \${TOKEN})`;
}

/** An A2A card as text, laid out as a fisk agent's is. */
export function renderA2aCard(url: string, card: AgentCard): string[] {
  const lines = [
    `Agent card at ${stripControl(url)}`,
    '',
    `  Agent:       ${stripControl(wordOf(card.name))}`,
    `  Version:     ${stripControl(wordOf(card.version)) || '(none)'}`,
    `  Description: ${wordOf(card.description).trim() !== '' ? stripControl(card.description) : '(none)'}`,
    `  Protocols:   ${
      listOf(card.supportedInterfaces)
        .map((i) => stripControl(`A2A ${wordOf(i.protocolVersion)} ${wordOf(i.protocolBinding)} at ${wordOf(i.url)}`))
        .join(', ') || '(none)'
    }`,
    `  Streaming:   ${card.capabilities?.streaming === true ? 'yes' : 'no'}`,
    `  Auth:        ${authOf(card)}`,
    '',
  ];
  const skills = listOf(card.skills);
  if (skills.length === 0) return [...lines, 'The agent lists no skills.'];
  lines.push(`Skills (${skills.length}):`);
  for (const skill of skills) {
    lines.push('', `  ${stripControl(wordOf(skill.name) || wordOf(skill.id))}`);
    for (const l of stripControl(wordOf(skill.description)).split('\n')) if (l.trim() !== '') lines.push(`    ${l}`);
    if (listOf(skill.tags).length > 0) lines.push(`    tags: ${stripControl(listOf(skill.tags).join(', '))}`);
    for (const e of listOf(skill.examples).slice(0, 5)) lines.push(`    example: ${stripControl(e)}`);
  }
  return lines;
}

/** The headers of the `remote_agents` entry with this url in the configuration, when there is one. */
async function headersFor(url: string, flags: DiscoverFlags, io: Io): Promise<Record<string, string>> {
  const path = resolve(io.cwd, flags.config);
  if (!existsSync(path)) return {};
  const { parseConfigForMode, resolveRemoteAgentHeaders } = await import('../../config/index.js');
  const config = parseConfigForMode({ path }, 'discover');
  const index = config.remoteAgents.findIndex((a) => a.url === url);
  const entry = config.remoteAgents[index];
  return entry === undefined ? {} : { ...resolveRemoteAgentHeaders(entry, index, io.env).headers };
}

async function discoverUrl(url: string, flags: DiscoverFlags, io: Io): Promise<void> {
  const [{ checkServiceUrl, ConfigError }, { readAgentCard, cardUrl }] = await Promise.all([
    import('../../config/index.js'),
    import('../../remotetools/index.js'),
  ]);
  try {
    checkServiceUrl(url, 'the agent card URL');
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage, { cause: err });
    throw err;
  }
  const headers = await headersFor(url, flags, io);
  let card: AgentCard;
  try {
    card = await readAgentCard(url, headers);
  } catch (err) {
    // a header value may be quoted back in an error
    const text = Object.values(headers).reduce(
      (t, v) => (v.length >= 8 ? t.split(v).join('[REDACTED]') : t),
      err instanceof Error ? err.message : String(err),
    );
    throw new CliError(`cannot discover the A2A agent at ${url}: ${text}`, EXIT.error, { cause: err });
  }
  for (const line of renderA2aCard(cardUrl(url).href, card)) println(io.out, line);
}

async function discover(agent: string, flags: DiscoverFlags, io: Io): Promise<void> {
  if (/^https?:\/\//i.test(agent)) return discoverUrl(agent, flags, io);
  if (flags.context !== undefined && flags.natsContext !== undefined && flags.context !== flags.natsContext) {
    throw new CliError(
      `--context ${JSON.stringify(flags.context)} and --nats-context ${JSON.stringify(flags.natsContext)} name different NATS contexts; pass one`,
      EXIT.usage,
    );
  }
  let contextName = flags.context ?? flags.natsContext;
  let identity = ANONYMOUS;
  if (contextName === undefined || contextName === '') {
    const { parseConfigForMode } = await import('../../config/index.js');
    const path = resolve(io.cwd, flags.config);
    const config = parseConfigForMode({ path }, 'discover');
    if (config.natsContext === undefined || config.natsContext === '') {
      throw new CliError(`no nats_context in ${JSON.stringify(flags.config)}; set nats_context there or pass --context`, EXIT.config);
    }
    contextName = config.natsContext;
    identity = config.identity;
  }
  const timeoutMs = flags.timeout !== undefined ? Number(flags.timeout) * 1000 : 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new CliError(`--timeout ${JSON.stringify(flags.timeout)} is not a positive number of seconds`, EXIT.usage);
  const [{ connectNats }, { A2aClient, A2aError, createTransport }] = await Promise.all([
    import('../../conns/index.js'),
    import('../../a2a/index.js'),
  ]);
  const conn = await connectNats(contextName, { env: io.env, name: `fisk-ai ${identity}` });
  try {
    const client = new A2aClient(createTransport('nats', { connection: conn.connection, timeoutMs }), identity);
    let card: DiscoveryReplyMessage;
    try {
      card = await client.discover(agent);
    } catch (err) {
      if (err instanceof A2aError)
        throw new CliError(
          `cannot discover agent ${JSON.stringify(agent)} on NATS context ${JSON.stringify(contextName)}: ${err.message}`,
          err.code === 'identity' ? EXIT.usage : EXIT.error,
          { cause: err },
        );
      throw err;
    }
    for (const line of renderCard(agent, card)) println(io.out, line);
  } finally {
    await conn.connection.close();
  }
}

export function registerDiscover(program: Command, io: Io): void {
  program
    .command('discover')
    .description("fetch a peer agent's card over NATS (or an A2A agent's card over HTTP) and list its tools")
    .argument('<agent>', 'the identity of the agent to discover, or the URL of an A2A agent card')
    .option('--config <file>', 'read nats_context from this configuration', 'agent.yaml')
    .option('--context <name>', 'the NATS context to use instead of the configuration (also --nats-context, as fisk run names it)')
    .addOption(new Option('--nats-context <name>').hideHelp())
    .option('--timeout <seconds>', 'how long to wait for the card', '30')
    .action((agent: string, flags: DiscoverFlags) => discover(agent, flags, io));
}
