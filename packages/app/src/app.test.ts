import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { hideFromTools, tagCommand, valueType } from './annotate.js';
import { describeApplication } from './describe.js';
import { answerIntrospection, INTROSPECT_FLAG } from './introspect.js';
import type { ApplicationModel } from './model.js';

function program(): Command {
  const p = new Command('demo').description('A demo').option('--context <name>', 'The context').option('--verbose', 'Say more');
  const stream = p.command('stream').description('Streams');
  const add = stream
    .command('add')
    .summary('Adds a stream')
    .description('Adds a stream with the given subjects.')
    .argument('<name>', 'The stream name')
    .argument('[subjects...]', 'Subjects to bind')
    .option('--replicas <n>', 'Replica count', '1')
    .option('--no-ack', 'Do not acknowledge')
    .option('--discard', 'Discard old messages')
    .option('--no-discard', 'Keep old messages')
    .option('--label <labels...>', 'Labels')
    .option('--max-age <duration>', 'Maximum age')
    .requiredOption('--storage <kind>', 'Storage kind')
    .action(() => {});
  valueType(add.options.find((o) => o.long === '--replicas') as Option, 'integer');
  valueType(add.options.find((o) => o.long === '--max-age') as Option, 'duration');
  add.addOption(new Option('--retention <policy>', 'Retention').choices(['limits', 'interest']));
  add.addOption(new Option('--secret-knob <x>', 'Not for models').hideHelp());
  tagCommand(add, 'ai:additive', 'impact:rw');
  tagCommand(add, 'ai:additive');
  p.command('secret', { hidden: true }).action(() => {});
  hideFromTools(p.command('internal').action(() => {}));
  return p;
}

/** What a reader receives: the document as JSON text, decoded. */
function printed(p: Command, meta: { version?: string; author?: string } = {}): ApplicationModel {
  return JSON.parse(JSON.stringify(describeApplication(p, meta))) as ApplicationModel;
}

describe('describeApplication', () => {
  it('describes the program header and its own options as the global flags', () => {
    const model = printed(program(), { version: '2.0.0', author: 'Ops <ops@example.com>' });
    expect(model).toMatchObject({ name: 'demo', help: 'A demo', version: '2.0.0', author: 'Ops <ops@example.com>', args: [] });
    expect(model.flags.map((f) => [f.name, f.boolean, f.help])).toEqual([
      ['context', false, 'The context'],
      ['verbose', true, 'Say more'],
    ]);
    expect(printed(new Command('bare'))).toMatchObject({ version: '', author: '' });
  });

  it('describes each option and argument of a leaf in fisk form', () => {
    const add = printed(program()).commands[0]?.commands[0];
    expect(add?.help).toBe('Adds a stream');
    expect(add?.help_long).toBe('Adds a stream with the given subjects.');
    expect(add?.tags).toEqual(['ai:additive', 'impact:rw']);
    expect(add?.flags.map((f) => [f.name, f.boolean, f.negatable, f.cumulative, f.required, f.hidden])).toEqual([
      ['replicas', false, false, false, false, false],
      ['no-ack', true, false, false, false, false],
      ['discard', true, true, false, false, false],
      ['label', false, false, true, false, false],
      ['max-age', false, false, false, false, false],
      ['storage', false, false, false, true, false],
      ['retention', false, false, false, false, false],
      ['secret-knob', false, false, false, false, true],
    ]);
    expect(add?.flags.find((f) => f.name === 'replicas')?.default).toEqual(['1']);
    expect(add?.flags.find((f) => f.name === 'retention')?.completions).toEqual(['limits', 'interest']);
    expect(add?.args.map((a) => [a.name, a.required, a.cumulative])).toEqual([
      ['name', true, false],
      ['subjects', false, true],
    ]);
  });

  it('gives every leaf a restricted schema and no group one', () => {
    const model = printed(program());
    const add = model.commands[0]?.commands[0];
    const expected = {
      type: 'object',
      properties: {
        replicas: { type: 'integer', description: 'Replica count' },
        'no-ack': { type: 'boolean', description: 'Do not acknowledge' },
        discard: { type: 'boolean', description: 'Discard old messages' },
        label: { type: 'array', items: { type: 'string' }, description: 'Labels' },
        'max-age': { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$', description: 'Maximum age' },
        storage: { type: 'string', description: 'Storage kind' },
        retention: { type: 'string', enum: ['limits', 'interest'], description: 'Retention' },
        name: { type: 'string', description: 'The stream name' },
        subjects: { type: 'array', items: { type: 'string' }, description: 'Subjects to bind' },
      },
      required: ['storage', 'name'],
      additionalProperties: false,
    };
    expect(add?.restricted_schema).toEqual(expected);
    expect(add?.schema).toEqual(expected);
    expect(model.commands[0]?.restricted_schema).toBeUndefined();
  });

  it('marks commander-hidden and tool-hidden commands hidden, and leaves out the framework options', () => {
    const p = program().version('1.0.0');
    const model = printed(p);
    expect(model.commands.map((c) => [c.name, c.hidden])).toEqual([
      ['stream', false],
      ['secret', true],
      ['internal', true],
    ]);
    expect(model.flags.map((f) => f.name)).not.toContain('version');
  });
});

describe('answerIntrospection', () => {
  it('answers only when the flag is among the arguments', () => {
    let written = '';
    const write = (t: string) => (written += t);
    expect(answerIntrospection(program(), { argv: ['node', 'x', 'stream'], write })).toBe(false);
    expect(written).toBe('');
    expect(answerIntrospection(program(), { argv: ['node', 'x', INTROSPECT_FLAG], version: '3.1.0', write })).toBe(true);
    expect(written.endsWith('}\n')).toBe(true);
    expect(JSON.parse(written)).toEqual(describeApplication(program(), { version: '3.1.0' }));
  });
});

describe('annotations', () => {
  it('refuses an empty tag and an unknown value type', () => {
    expect(() => tagCommand(new Command('x'), ' ')).toThrow(/must not be empty/);
    expect(() => valueType(new Option('--x <y>'), 'float' as 'number')).toThrow(/unknown value type "float"/);
  });

  it('returns what it annotates, so calls chain', () => {
    const cmd = new Command('x');
    const opt = new Option('--n <n>');
    expect(tagCommand(cmd, 'ai:read_only')).toBe(cmd);
    expect(hideFromTools(cmd)).toBe(cmd);
    expect(valueType(opt, 'number')).toBe(opt);
  });
});
