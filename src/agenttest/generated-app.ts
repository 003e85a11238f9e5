/**
 * A generated application for tests and benchmarks of large tool sets: the `--fisk-introspect`
 * document of a command-line program with 20 resource groups of 15 commands each (300 tools),
 * every command with its own description, flags and tags.
 */
import type { FlagModel } from '@fisk-ai/app';
import { flagModel } from './app-model.js';

/** One resource group: the command word and how descriptions speak of it. */
interface Resource {
  readonly word: string;
  readonly phrase: string;
  readonly flags: readonly string[];
}

/** One command of every group: its word, a description template (`@` is the resource), flags and tags. */
interface Action {
  readonly word: string;
  readonly template: string;
  readonly flags: readonly string[];
  readonly tags: readonly string[];
}

const RESOURCES: readonly Resource[] = [
  { word: 'stream', phrase: 'message stream', flags: ['subjects', 'retention'] },
  { word: 'consumer', phrase: 'durable consumer', flags: ['ack_policy', 'deliver_group'] },
  { word: 'kv', phrase: 'key-value bucket', flags: ['history', 'ttl'] },
  { word: 'objstore', phrase: 'object store', flags: ['chunk_size', 'compression'] },
  { word: 'account', phrase: 'tenant account', flags: ['limits', 'signing_key'] },
  { word: 'user', phrase: 'login user', flags: ['password', 'permissions'] },
  { word: 'cert', phrase: 'TLS certificate', flags: ['issuer', 'expiry'] },
  { word: 'dns', phrase: 'DNS zone record', flags: ['record_type', 'zone'] },
  { word: 'volume', phrase: 'disk volume', flags: ['size_gb', 'filesystem'] },
  { word: 'snapshot', phrase: 'volume snapshot', flags: ['retain_days', 'source_volume'] },
  { word: 'network', phrase: 'virtual network', flags: ['cidr', 'gateway'] },
  { word: 'firewall', phrase: 'firewall rule', flags: ['port', 'protocol'] },
  { word: 'queue', phrase: 'work queue', flags: ['max_depth', 'visibility_timeout'] },
  { word: 'cron', phrase: 'scheduled job', flags: ['schedule', 'timezone'] },
  { word: 'secret', phrase: 'stored secret', flags: ['rotation', 'vault'] },
  { word: 'dashboard', phrase: 'metrics dashboard', flags: ['panels', 'refresh'] },
  { word: 'alert', phrase: 'alerting rule', flags: ['threshold', 'severity'] },
  { word: 'invoice', phrase: 'billing invoice', flags: ['currency', 'due_date'] },
  { word: 'ticket', phrase: 'support ticket', flags: ['priority', 'assignee'] },
  { word: 'webhook', phrase: 'outgoing webhook', flags: ['endpoint_url', 'events'] },
];

const READ = ['ai:read_only'];
const WRITE: readonly string[] = [];
const DESTROY = ['ai:destructive'];

const ACTIONS: readonly Action[] = [
  { word: 'add', template: 'Creates a new @ with the given settings', flags: [], tags: WRITE },
  { word: 'rm', template: 'Deletes a @ permanently, after which it cannot be recovered', flags: ['force'], tags: DESTROY },
  { word: 'ls', template: 'Lists every @ with its name and state', flags: ['filter'], tags: READ },
  { word: 'info', template: 'Shows the full configuration and current status of one @', flags: ['json'], tags: READ },
  { word: 'edit', template: 'Changes the settings of an existing @ in place', flags: [], tags: WRITE },
  { word: 'backup', template: 'Saves a @ and its data to an archive file', flags: ['output_file'], tags: READ },
  { word: 'restore', template: 'Rebuilds a @ from an archive file made by backup', flags: ['input_file'], tags: WRITE },
  { word: 'report', template: 'Reports usage statistics and growth for each @', flags: ['since'], tags: READ },
  { word: 'copy', template: 'Duplicates a @ under another name', flags: ['target_name'], tags: WRITE },
  { word: 'purge', template: 'Empties all content held by a @ while keeping its definition', flags: ['keep_last'], tags: DESTROY },
  { word: 'seal', template: 'Freezes a @ so nobody can modify it any more', flags: [], tags: WRITE },
  { word: 'watch', template: 'Follows live events about a @ as they happen', flags: ['duration'], tags: READ },
  { word: 'export', template: 'Writes the definition of a @ out as portable JSON', flags: ['pretty'], tags: READ },
  { word: 'import', template: 'Reads a @ definition from portable JSON and registers it', flags: ['replace'], tags: WRITE },
  { word: 'check', template: 'Verifies the health and consistency of a @ and lists problems found', flags: ['repair'], tags: READ },
];

/** One generated command as the model will see it. */
export interface GeneratedCommand {
  /** The tool name (`<group>_<command>`). */
  readonly name: string;
  readonly description: string;
}

/** The introspection document and, for each leaf, its tool name and description. */
export interface GeneratedApplication {
  /** The `--fisk-introspect` JSON. */
  readonly model: Record<string, unknown>;
  readonly commands: readonly GeneratedCommand[];
}

function flag(name: string): FlagModel {
  return flagModel(name, { help: `the ${name.replace(/_/g, ' ')}` });
}

/** A 300-command application: 20 resource groups times 15 commands. */
export function generatedApplication(): GeneratedApplication {
  const commands: GeneratedCommand[] = [];
  const groups = RESOURCES.map((resource) => ({
    name: resource.word,
    aliases: [],
    help: `Manage every ${resource.phrase}`,
    help_long: '',
    hidden: false,
    default: false,
    tags: [],
    flags: [],
    args: [],
    commands: ACTIONS.map((action) => {
      const description = action.template.replace('@', resource.phrase);
      commands.push({ name: `${resource.word}_${action.word}`, description });
      const flags = [...resource.flags, ...action.flags];
      return {
        name: action.word,
        aliases: [],
        help: description,
        help_long: '',
        hidden: false,
        default: false,
        tags: action.tags,
        flags: flags.map(flag),
        args: [
          {
            name: 'name',
            help: `the ${resource.phrase} name`,
            default: [],
            envar: '',
            place_holder: '',
            required: true,
            hidden: false,
            cumulative: false,
          },
        ],
        commands: [],
        restricted_schema: {
          type: 'object',
          properties: Object.fromEntries<Record<string, string>>([
            ...flags.map((f): [string, Record<string, string>] => [f, { type: 'string', description: `the ${f.replace(/_/g, ' ')}` }]),
            ['name', { type: 'string', description: `the ${resource.phrase} name` }],
          ]),
          required: ['name'],
          additionalProperties: false,
        },
      };
    }),
  }));
  return {
    model: { name: 'opsctl', help: 'Operates a hosted platform', version: '1.0.0', author: '', flags: [], args: [], commands: groups },
    commands,
  };
}
