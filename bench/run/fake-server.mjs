// The fake model server for the run benchmark, in its own process so its work never lands on the
// measured clocks: every request is answered at once with a final answer, "done".
import { anthropicText, startFakeModelServer } from '../../dist/agenttest/index.js';

const reply = anthropicText('done');
const server = await startFakeModelServer({ record: false, keepAliveTimeoutMs: 60_000, fallback: () => reply });
process.send({ url: server.url });
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
