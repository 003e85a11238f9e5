/**
 * The agent card of the A2A HTTP channel: the identity, its description, the one JSON-RPC
 * interface (answering both protocol versions the SDK speaks), and the served tool selection as
 * skills. Bearer auth, when configured, is on the card so a caller knows to send its token.
 */
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { Tool } from '../../toolkit/tool.js';

export interface HttpCardOptions {
  readonly identity: string;
  readonly version: string;
  readonly description: string;
  /** Where callers post: the configured public URL, or the listening address. */
  readonly url: string;
  readonly bearer: boolean;
  /** The served tool selection (what a peer could be lent), described as skills. */
  readonly tools: readonly Tool[];
}

const MODES = ['text/plain', 'application/json'];

/**
 * A served tool as a skill. The card has a field for tags, so they are said there, after `tool`,
 * and the description is the plain one: the trailing `Tags:` line of the model-facing description
 * is for surfaces without such a field (MCP, the NATS card), and here would say them twice.
 */
function skillOf(tool: Tool): AgentSkill {
  const tags = [...new Set(['tool', ...tool.capabilities.tags])];
  return {
    id: tool.name,
    name: tool.name,
    description: tool.description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

/** A card with no tools still names one skill: answering a prompt. */
function generalSkill(o: HttpCardOptions): AgentSkill {
  return {
    id: 'prompt',
    name: o.identity,
    description: o.description,
    tags: ['prompt'],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

export function buildHttpCard(options: HttpCardOptions): AgentCard {
  const interfaces = duplicateInterfacesForLegacy(
    [{ url: options.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    ['JSONRPC'],
  );
  return {
    name: options.identity,
    description: options.description,
    supportedInterfaces: interfaces,
    provider: undefined,
    version: options.version === '' ? 'dev' : options.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: options.bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: {
                description: 'The token the operator of this agent gave you, as Authorization: Bearer <token>',
                scheme: 'Bearer',
                bearerFormat: '',
              },
            },
          },
        }
      : {},
    securityRequirements: options.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: options.tools.length === 0 ? [generalSkill(options)] : options.tools.map(skillOf),
    signatures: [],
  };
}
