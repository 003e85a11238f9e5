// One fake model server for the loop benchmark, in its own process so its work never lands on the
// benchmark's clock: not recording, connections kept alive. It answers every request by counting
// the tool results the request carries: a call to the next tool until TURNS results, then a
// final answer. Usage: node fake-server.mjs <anthropic|responses|chat> <turns> <tools>
import {
  anthropicText,
  anthropicToolUse,
  chatCompletion,
  openaiFunctionCallItem,
  openaiResponse,
  openaiText,
  startFakeModelServer,
} from '../../dist/agenttest/index.js';

const [wire, turnsArg, toolsArg] = process.argv.slice(2);
const TURNS = Number(turnsArg);
const TOOLS = Number(toolsArg);

// What marks one tool result in a request body, whichever client wrote it.
const marker = { anthropic: '"tool_use_id"', responses: '"function_call_output"', chat: '"tool_call_id"' }[wire];
if (marker === undefined) throw new Error(`unknown wire ${wire}`);

const usage = {
  anthropic: { input_tokens: 10, output_tokens: 5 },
  responses: { input_tokens: 10, output_tokens: 5 },
  chat: { prompt_tokens: 10, completion_tokens: 5 },
}[wire];
function replyFor(n) {
  const args = { text: `call ${n}` };
  const name = `tool_${n % TOOLS}`;
  switch (wire) {
    case 'anthropic':
      return n < TURNS ? anthropicToolUse([{ id: `toolu_${n}`, name, input: args }], { usage }) : anthropicText('All done.', { usage });
    case 'responses':
      return n < TURNS ? openaiResponse([openaiFunctionCallItem(`call_${n}`, name, args)], { usage }) : openaiText('All done.', { usage });
    default:
      return n < TURNS
        ? chatCompletion(null, { tool_calls: [{ id: `call_${n}`, name, arguments: args }], usage })
        : chatCompletion('All done.', { usage });
  }
}
// Serialised once, so the server's own cost per request is a count and a write.
const replies = Array.from({ length: TURNS + 1 }, (_, n) => {
  const r = replyFor(n);
  return { ...r, body: JSON.stringify(r.body) };
});

function count(text) {
  let n = 0;
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) n++;
  return n;
}

const server = await startFakeModelServer({
  record: false,
  keepAliveTimeoutMs: 60_000,
  fallback: (request) => replies[Math.min(count(request.bodyText), TURNS)],
});
process.send({ url: server.url });
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
