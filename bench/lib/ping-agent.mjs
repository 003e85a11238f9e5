// The trivial agent several benches run: a `ping` tool that answers pong, and a fake model server
// that calls it once and answers `done` as soon as the tool result is in the conversation.
import { anthropicText, anthropicToolUse, startFakeModelServer } from '../../dist/agenttest/index.js';
import { newFuncTool } from '../../dist/toolkit/functool/index.js';

export const ping = newFuncTool({
  name: 'ping',
  description: 'Answers pong',
  inputSchema: { type: 'object', properties: {} },
  handler: () => Promise.resolve({ status: 'completed', output: 'pong', isError: false }),
});

/** The fake model server, kept alive between calls and recording nothing. */
export function startPingModel() {
  return startFakeModelServer({
    record: false,
    keepAliveTimeoutMs: 10_000,
    fallback: (req) =>
      req.bodyText.includes('"tool_result"') ? anthropicText('done') : anthropicToolUse([{ id: 't1', name: 'ping', input: {} }]),
  });
}
