/**
 * Embedding fisk-ai: an agent run from TypeScript, with one custom tool written as a function.
 * The model endpoint comes from the environment (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY), as it
 * does for `fisk run`. Usage: node embed.js "What is the status of order A-17?"
 */
import { config, host, toolkit } from 'fisk-ai';

const ORDERS: Readonly<Record<string, string>> = { 'A-17': 'shipped on Monday', 'B-2': 'waiting for stock' };

// A custom tool: a name, a plain description, a JSON schema whose root is an object, and a handler.
const lookupOrder = toolkit.functool.newFuncTool({
  name: 'lookup_order',
  description: 'Looks an order up by its id and says where it is',
  inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'The order id, e.g. A-17' } }, required: ['id'] },
  behavior: { readOnly: 'true' },
  handler: (input) => {
    const id = String(input['id']);
    const status = ORDERS[id];
    return Promise.resolve(
      status === undefined ? toolkit.functool.errorOutcome(`no order ${id}`) : toolkit.functool.jsonOutcome({ id, status }),
    );
  },
});

const agentConfig = config.parseConfigForMode(
  {
    name: 'embedded agent',
    text: [
      'identity: order-desk',
      'system_prompt: You answer questions about orders. Look every order up with lookup_order.',
      'llm: {provider: anthropic, model: claude-sonnet-4-6, budget: {max_iterations: 4}}',
    ].join('\n'),
  },
  'run',
);

// The host builds what the run borrows (the provider from llm.provider, the tool set, the stores);
// the custom tool joins the namespace last, after every configured source.
const runtime = await host.openRuntime(agentConfig, 'run', { env: process.env, customTools: [lookupOrder] });
try {
  const run = await host.startRun(runtime, { prompt: process.argv.slice(2).join(' ') || 'What is the status of order A-17?' });
  const outcome = await run.outcome;
  await run.close();
  if (outcome.status === 'completed') {
    process.stdout.write(`${outcome.answer}\n`);
  } else {
    process.stderr.write(`the run stopped (${outcome.status}): ${outcome.message}\n`);
    process.exitCode = 1;
  }
} finally {
  await runtime.close();
}
