import { describe, expect, it } from 'vitest';
import { ArgvError, renderArgvFromJson } from './argv.js';
import type { CommandShape } from './argv.js';
import { argModel as arg, flagModel as flag } from '../../agenttest/app-model.js';

const shape: CommandShape = {
  path: ['stream', 'add'],
  globals: [flag('context'), flag('trace', { boolean: true })],
  flags: [
    flag('upper', { boolean: true }),
    flag('color', { boolean: true, negatable: true }),
    flag('banner', { boolean: true, default: ['true'] }),
    flag('count'),
    flag('label', { cumulative: true }),
    flag('meta', { cumulative: true }),
  ],
  args: [arg('first'), arg('second', { default: ['two'] }), arg('rest', { cumulative: true })],
};
const render = (json: string) => renderArgvFromJson(shape, json);

describe('renderArgvFromJson', () => {
  it('puts the path, then globals, then flags in declared order, then -- and positionals', () => {
    expect(render('{"first":"a","count":3,"context":"prod","upper":true}')).toEqual([
      'stream',
      'add',
      '--context=prod',
      '--upper',
      '--count=3',
      '--',
      'a',
    ]);
  });
  it('emits no separator when no positional is given', () => {
    expect(render('{}')).toEqual(['stream', 'add']);
    expect(render('null')).toEqual(['stream', 'add']);
  });
  it('renders negatable and un-negatable switches', () => {
    expect(render('{"color":false}')).toEqual(['stream', 'add', '--no-color']);
    expect(render('{"color":true,"upper":false}')).toEqual(['stream', 'add', '--color']);
    expect(() => render('{"banner":false}')).toThrow(/on by default/);
    expect(() => render('{"upper":"yes"}')).toThrow(/takes true or false/);
  });
  it('repeats lists, sorts maps by key and keeps numbers exactly as written', () => {
    expect(render('{"label":["x","y"],"meta":{"b":"2","a":1}}')).toEqual([
      'stream',
      'add',
      '--label=x',
      '--label=y',
      '--meta=a=1',
      '--meta=b=2',
    ]);
    expect(render('{"count":12345678901234567890}')).toEqual(['stream', 'add', '--count=12345678901234567890']);
    expect(render('{"count":1e5}')).toEqual(['stream', 'add', '--count=1e5']);
    expect(render('{"count":null}')).toEqual(['stream', 'add', '--count=']);
  });
  it('fills an omitted positional from its default, or refuses', () => {
    expect(render('{"first":"a","rest":["x","y"]}')).toEqual(['stream', 'add', '--', 'a', 'two', 'x', 'y']);
    expect(() => render('{"second":"b"}')).toThrow(/"first" must be given because "second" is/);
  });
  it('keeps model text as one argv element, never interpreting it', () => {
    expect(render('{"first":"$(rm -rf /); echo `x` | cat"}')).toEqual(['stream', 'add', '--', '$(rm -rf /); echo `x` | cat']);
    expect(render('{"first":"--force"}')).toEqual(['stream', 'add', '--', '--force']);
    // a flag value that looks like more flags stays inside its own element
    expect(render('{"count":"3 --force","context":"--trace","label":["a\\n--upper"]}')).toEqual([
      'stream',
      'add',
      '--context=--trace',
      '--count=3 --force',
      '--label=a\n--upper',
    ]);
    expect(render('{"first":"-rf","rest":["--","; rm -rf ~"]}')).toEqual(['stream', 'add', '--', '-rf', 'two', '--', '; rm -rf ~']);
  });
  it('refuses unknown properties, lists for single positionals and malformed input', () => {
    expect(() => render('{"nope":1}')).toThrow(ArgvError);
    expect(() => render('{"nope":1}')).toThrow('unknown argument "nope"');
    expect(() => render('{"first":["a"]}')).toThrow(/takes one value/);
    expect(() => render('{"count":{"a":{"b":1}}}')).toThrow(/must be a string, number or boolean/);
    expect(() => render('[1]')).toThrow(/must be a JSON object/);
    expect(() => render('{"first":')).toThrow(/not valid JSON/);
  });
  it('refuses a repeating positional that is not last', () => {
    const bad: CommandShape = { ...shape, args: [arg('many', { cumulative: true }), arg('last')] };
    expect(() => renderArgvFromJson(bad, '{"many":["a"],"last":"b"}')).toThrow(/not the last argument/);
  });
});
