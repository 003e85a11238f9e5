// The least program that answers a prompt with the official Anthropic SDK: one call, no
// configuration, no tools, over the same node:http transport fisk hands the SDK (without it the SDK
// goes through Node's own fetch, which costs more to load than the rest of such a program). The
// run benchmark bundles it into one file and starts it with fisk's own launcher and V8's code
// cache, so the two differ only in what fisk does besides the call. Prints the answer's text.
import Anthropic from '@anthropic-ai/sdk';
import { nodeFetch } from '../../dist/llm/node-fetch.js';

const [url] = process.argv.slice(2);
// no top-level await: the bundle is a CommonJS module, as fisk's is
void (async () => {
  const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0, fetch: nodeFetch });
  const answer = await client.messages.create({
    model: 'claude-fake-1',
    max_tokens: 1024,
    system: 'You answer.',
    messages: [{ role: 'user', content: 'hi' }],
  });
  console.log(answer.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));
})().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
