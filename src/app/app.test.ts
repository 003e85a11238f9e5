import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import * as appPackage from '@fisk-ai/app';
import { describeApplication, hideFromTools, tagCommand, valueType } from '@fisk-ai/app';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCommandTools } from '../toolkit/fisk/application.js';
import type { FiskCommandTool } from '../toolkit/fisk/command-tool.js';
import { readApplicationModel } from '../toolkit/fisk/model.js';
import { loadApplicationTools } from '../toolkit/load.js';
import * as reexported from './index.js';

interface Seen {
  args: unknown[];
  opts: Record<string, unknown>;
}

function program(seen: Seen[]): Command {
  const p = new Command('demo').description('A demo').option('--context <name>', 'The context').exitOverride();
  const record = (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    seen.push({ args: args.slice(0, -2), opts: cmd.optsWithGlobals() });
  };
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
    .action(record);
  valueType(add.options.find((o) => o.long === '--replicas') as Option, 'integer');
  valueType(add.options.find((o) => o.long === '--max-age') as Option, 'duration');
  add.addOption(new Option('--retention <policy>', 'Retention').choices(['limits', 'interest']));
  tagCommand(add, 'ai:additive', 'impact:rw');
  p.command('secret', { hidden: true }).action(record);
  hideFromTools(p.command('internal').action(record));
  return p;
}

describe('fisk-ai/app', () => {
  it('re-exports every value of @fisk-ai/app, the same objects', () => {
    expect(Object.keys(reexported).sort()).toEqual(Object.keys(appPackage).sort());
    for (const [name, value] of Object.entries(appPackage)) expect(reexported[name as keyof typeof reexported], name).toBe(value);
  });
});

describe('a commander program described by @fisk-ai/app, read by fisk-ai', () => {
  it('passes the reader unchanged, every leaf with its schema', () => {
    const printed = describeApplication(program([]), { version: '2.0.0' });
    const model = readApplicationModel(JSON.parse(JSON.stringify(printed)));
    expect(model).toEqual(printed);
    expect(model.commands[0]?.commands[0]?.restricted_schema).toMatchObject({ required: ['storage', 'name'] });
  });

  it('renders model arguments to argv that commander parses back to the same values', async () => {
    const seen: Seen[] = [];
    const p = program(seen);
    const model = describeApplication(p);
    const { tools } = buildCommandTools(model, { binary: 'demo', globals: model.flags, confirmTags: [], credentialEnvNames: [] });
    expect(tools.map((t) => t.name)).toEqual(['stream_add']);
    const add = tools[0] as FiskCommandTool;
    const argv = add.argv(
      '{"name":"ORDERS","subjects":["a.>","b"],"replicas":3,"ack":null,"discard":false,"label":["x","y"],"storage":"file","context":"prod"}'.replace(
        '"ack":null,',
        '',
      ),
    );
    await p.parseAsync(argv, { from: 'user' });
    expect(seen).toEqual([
      {
        args: ['ORDERS', ['a.>', 'b']],
        opts: { context: 'prod', replicas: '3', ack: true, discard: false, label: ['x', 'y'], storage: 'file' },
      },
    ]);
  });
});

describe('a TypeScript application as a tool', () => {
  const sources = fileURLToPath(new URL('../../packages/app/src/', import.meta.url));
  const app = fileURLToPath(new URL('../../test/fixtures/ts-app.mjs', import.meta.url));
  let dir = '';
  beforeAll(() => {
    // Compile the package's sources as a user would receive them, so the fixture runs against them.
    dir = mkdtempSync(join(tmpdir(), 'fisk-app-'));
    mkdirSync(join(dir, 'app'));
    for (const f of readdirSync(sources).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))) {
      const out = ts.transpileModule(readFileSync(join(sources, f), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      writeFileSync(join(dir, 'app', f.replace(/\.ts$/, '.js')), out.outputText);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('introspects, lists and runs its commands', async () => {
    const loaded = await loadApplicationTools({
      applicationPath: app,
      globalFlags: ['region'],
      confirmTags: ['impact:rw'],
      include: { tools: [], tags: [] },
      exclude: { tools: [], tags: [] },
      credentialEnvNames: [],
      env: { ...process.env, FISK_AI_APP_MODULE: join(dir, 'app', 'index.js') },
    });
    expect(loaded.source.tools.map((t) => t.name)).toEqual(['greet', 'files_rm']);
    const signal = new AbortController().signal;
    const greet = loaded.source.tools[0] as FiskCommandTool;
    const r1 = await greet.execute('{"name":"ops","times":2,"no-punctuation":true,"shout":true,"region":"eu"}', {}, signal);
    expect(r1).toMatchObject({
      isError: false,
      exec: { command: 'greet --region=eu --shout --no-punctuation --times=2 -- ops', exitCode: 0 },
    });
    if (r1.status === 'completed') expect(JSON.parse(r1.output)).toEqual({ text: 'HELLO OPS', times: 2, region: 'eu' });
    const rm = loaded.source.tools[1] as FiskCommandTool;
    expect(rm.capabilities.gate).toEqual({ gated: true, trigger: 'impact:rw' });
    const r2 = await rm.execute('{"paths":["a","b c"],"mode":"hard"}', {}, signal);
    if (r2.status === 'completed') expect(r2.output).toBe('{"removed":["a","b c"],"mode":"hard"}\ndone\n');
  });
});
