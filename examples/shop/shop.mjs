#!/usr/bin/env node
// A small tool application: commander for the commands, @fisk-ai/app so an agent can discover them
// with --fisk-introspect. Tags decide what the model may do: `stock` is read-only, `order` waits
// for an operator's approval (ai:confirm) and `reset` is never shown to a model (ai:deny).
import process from 'node:process';
import { Command, Option } from 'commander';
import { answerIntrospection, tagCommand, valueType } from '@fisk-ai/app';

const STOCK = { apples: 12, pears: 0, plums: 40 };

const program = new Command('shop').description('A tiny shop: look at the stock, order more');

const stock = program
  .command('stock')
  .description('Lists every item with the number in stock')
  .action(() => {
    for (const [item, count] of Object.entries(STOCK)) process.stdout.write(`${item}\t${count}\n`);
  });
tagCommand(stock, 'ai:read_only');

const order = program
  .command('order')
  .description('Orders more of one item from the supplier')
  .argument('<item>', 'The item to order')
  .addOption(valueType(new Option('--quantity <n>', 'How many to order').argParser(Number).default(10), 'integer'))
  .action((item, opts) => {
    if (!(item in STOCK)) {
      process.stderr.write(`no such item: ${item}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`ordered ${opts.quantity} ${item}\n`);
  });
tagCommand(order, 'ai:confirm');

const reset = program
  .command('reset')
  .description('Empties the whole stock')
  .action(() => process.stdout.write('stock emptied\n'));
tagCommand(reset, 'ai:deny');

if (!answerIntrospection(program, { version: '1.0.0' })) await program.parseAsync();
