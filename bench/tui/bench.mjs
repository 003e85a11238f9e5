// The full-screen view's transcript, which is laid out again for every frame drawn:
//   - how long laying out all rows takes for transcripts of 1,000, 10,000 and 50,000 lines
//     (tool calls and folded tool output, wrapped at 100 columns), folded and unfolded,
//   - how long one streamed fragment costs (adding it and laying the rows out again) at each size,
//   - how long a search over the whole transcript takes, and the heap the transcript holds.
import { Transcript } from '../../dist/tui/transcript.js';

const sizes = [1000, 10000, 50000];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function time(fn, rounds) {
  const out = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(out);
}

function build(lines) {
  const t = new Transcript({ verbose: false, width: () => 100 });
  let n = 0;
  let id = 0;
  while (n < lines) {
    t.addEvent({ type: 'tool_call', id: String(id), name: 'stream_info', input: { stream: `ORDERS_${id}`, json: true } });
    t.addEvent({
      type: 'tool_result',
      call_id: String(id),
      is_error: false,
      output: Array.from({ length: 8 }, (_, i) => `field_${i}: ${'x'.repeat(40 + ((i * 13) % 90))}`).join('\n'),
    });
    id++;
    n = t.length;
  }
  return t;
}

const result = {};
for (const size of sizes) {
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const t = build(size);
  globalThis.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - before) / 1048576;
  const rounds = size >= 50000 ? 5 : 15;
  t.addEvent({ type: 'status', iteration: 1, phase: 'model_call', usage: { input_tokens: 0, output_tokens: 0 } });
  result[`lines_${size}`] = {
    rows_folded_ms: time(() => t.rows({ width: 100, folding: true }), rounds),
    rows_unfolded_ms: time(() => t.rows({ width: 100, folding: false }), rounds),
    fragment_then_rows_ms: time(() => {
      t.addEvent({ type: 'text_fragment', text: 'a streamed word ' });
      t.rows({ width: 100, folding: true });
    }, rounds),
    search_ms: time(() => t.search('field_7'), rounds),
    heap_mb: Number(heapMb.toFixed(1)),
  };
}
process.stdout.write(`${JSON.stringify(result)}\n`);
