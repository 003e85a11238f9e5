// Preloaded into a measured child (node --require): at exit, writes the process's peak resident set
// size in KiB to the file named by FISK_BENCH_RSS_FILE. CommonJS and preloaded with --require, as
// the fisk program is CommonJS: an ES module preloaded with --import would start the ES module
// loader in a process that otherwise never starts it, and count its memory against fisk.
//
// On Linux the peak is the process's own high-water mark (VmHWM): the peak getrusage reports
// (`maxRSS`) starts from the parent's resident size at the fork, so a child of a large benchmark
// process would report the benchmark's memory instead of its own.
const { readFileSync, writeFileSync } = require('node:fs');

function peakKib() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm !== null) return Number(hwm[1]);
  } catch {
    // not Linux: the rusage figure is the best there is
  }
  return process.resourceUsage().maxRSS;
}

const file = process.env.FISK_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(peakKib())));
