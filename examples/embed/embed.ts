/**
 * Embedding fisk-ai: an agent run from TypeScript, with one custom tool written as a function.
 * The model endpoint comes from the environment (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY), as it
 * does for `fisk run`. Usage: node embed.js "What is the status of order A-17?"
 */
import { agent, config, llm, toolkit } from 'fisk-ai';

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

const provider = llm.newProviderFromConfig(agentConfig.llm, { env: process.env });
const tools = await toolkit.resolveRunTools({
  sources: [{ source: 'custom', tools: [lookupOrder] }],
  confirmTags: agentConfig.harness.confirmTags,
  deferral: { noToolSearch: true, providerToolSearch: false },
});

const outcome = await agent.runAgent({
  config: agentConfig,
  provider,
  tools: new toolkit.PublishedToolSetSource(tools.toolSet),
  prompt: process.argv.slice(2).join(' ') || 'What is the status of order A-17?',
});

if (outcome.status === 'completed') {
  process.stdout.write(`${outcome.answer}\n`);
} else {
  process.stderr.write(`the run stopped (${outcome.status}): ${outcome.message}\n`);
  process.exitCode = 1;
}
