// Telemetry costs, against the built library:
//  - a tool call wrapped in a tool span, with telemetry off (the handle every disabled run holds)
//    and on (exporting to an in-process OTLP receiver), against the bare call;
//  - a model call's span with content capture on: a 30-message conversation encoded as a delta;
//  - encoding a conversation that must be trimmed to the 32 KiB attribute limit;
//  - `flood`: tool calls paced at 1,000 a second for 5 seconds on a fresh exporter (nothing may be
//    dropped), and the flood of the rounds above (as fast as the loop goes): how many spans were
//    delivered, how many dropped, and whether the report's line names the dropped ones.
import { startOtlpReceiver } from '../../dist/agenttest/index.js';
import { encodeMessages, resolveTelemetrySettings, startTelemetry, Telemetry } from '../../dist/telemetry/index.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const N = 20000;

async function perCall(fn) {
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await fn(i);
    rounds.push(Number(process.hrtime.bigint() - t) / N);
  }
  return median(rounds);
}

const work = () => Promise.resolve(1);
const receiver = await startOtlpReceiver();
try {
  const bare = await perCall(() => work());

  const off = Telemetry.disabled();
  const offRun = off.startRun({ agentName: 'bench' });
  const disabled = await perCall(() => offRun.toolCall('t', 'builtin', () => work()));

  const settings = resolveTelemetrySettings({
    config: { enabled: true, endpoint: receiver.url, captureContent: true, noMetrics: false },
    identity: 'bench',
    env: {},
  });
  const on = await startTelemetry(settings);
  const onRun = on.startRun({ agentName: 'bench' });
  const enabled = await perCall(() =>
    onRun.toolCall('t', 'builtin', (span) => {
      span.recordArguments(() => ({ path: 'README.md' }));
      return work();
    }),
  );

  const conversation = Array.from({ length: 30 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    parts: [{ type: 'text', content: 'x'.repeat(400) }],
  }));
  const chatNs = await perCall(() => {
    const chat = onRun.chat({ provider: 'anthropic', model: 'm' });
    chat.recordInput(() => conversation);
    chat.end();
    return Promise.resolve();
  });

  const big = Array.from({ length: 200 }, (_, i) => ({ role: 'user', parts: [{ type: 'text', content: `${i}`.repeat(1000) }] }));
  const trims = [];
  for (let r = 0; r < 200; r++) {
    const t = process.hrtime.bigint();
    encodeMessages(big, 32 * 1024);
    trims.push(Number(process.hrtime.bigint() - t) / 1000);
  }

  onRun.end();
  const report = await on.shutdown(30_000);
  const paced = await pacedCalls(receiver.url, 1000, 5);
  process.stdout.write(
    `${JSON.stringify({
      tool_call_bare_ns: Math.round(bare),
      tool_call_telemetry_off_ns: Math.round(disabled),
      tool_call_telemetry_on_ns: Math.round(enabled),
      chat_span_capture_delta_ns: Math.round(chatNs),
      trim_200_messages_to_32k_us: Math.round(median(trims)),
      delivery_under_flood: report.summary,
      flood: {
        at_1000_per_s: paced,
        flood: floodFigures(report),
      },
    })}\n`,
  );
} finally {
  await receiver.close();
}

/** Spans handed over, delivered and dropped in a report, and whether its line counts the dropped. */
function floodFigures(report) {
  const dropped = report.spans.attempted - report.spans.delivered;
  const named = dropped === 0 || report.summary.includes(String(dropped));
  return {
    ended: report.spans.attempted,
    delivered: report.spans.delivered,
    dropped,
    summary: report.summary,
    uncounted: named ? 0 : dropped,
  };
}

/** `perSecond` tool calls each second for `seconds` seconds on a fresh exporter; its delivery figures. */
async function pacedCalls(endpoint, perSecond, seconds) {
  const settings = resolveTelemetrySettings({
    config: { enabled: true, endpoint, captureContent: false, noMetrics: true },
    identity: 'bench',
    env: {},
  });
  const t = await startTelemetry(settings);
  const run = t.startRun({ agentName: 'bench' });
  const start = performance.now();
  for (let i = 0; i < perSecond * seconds; i++) {
    // pace: call i is due at start + i / perSecond seconds
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    await run.toolCall('t', 'builtin', () => work());
  }
  const elapsed = (performance.now() - start) / 1000;
  run.end();
  const report = await t.shutdown(30_000);
  return { calls: perSecond * seconds, seconds: Math.round(elapsed * 100) / 100, ...floodFigures(report) };
}
