// The floor under `fisk run`: a bare script making the same one-turn call with the official
// Anthropic SDK, as little as a program that answers a prompt with that SDK can do. With an
// application path as its third argument it also does the least any harness must do to offer that
// application's commands through the provider's tool search: run `--fisk-introspect`, decode the
// document, and send a definition of every leaf command (its restricted schema as is, deferred)
// with the request. Prints the answer's text.
import { execFileSync } from 'node:child_process';
import Anthropic from '@anthropic-ai/sdk';

const [url, app] = process.argv.slice(2);

function leaves(commands, path, out) {
  for (const c of commands) {
    const here = [...path, c.name];
    if (c.commands.length === 0)
      out.push({ name: here.join('_'), description: c.help, input_schema: c.restricted_schema, defer_loading: true });
    else leaves(c.commands, here, out);
  }
  return out;
}

const tools = [];
if (app !== undefined) {
  const model = JSON.parse(execFileSync(app, ['--fisk-introspect'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  tools.push({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }, ...leaves(model.commands, [], []));
}
const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
const answer = await client.messages.create({
  model: 'claude-fake-1',
  max_tokens: 1024,
  system: 'You answer.',
  messages: [{ role: 'user', content: 'hi' }],
  ...(tools.length === 0 ? {} : { tools }),
});
console.log(answer.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));
