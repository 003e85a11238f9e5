// The deterministic synthetic Markdown corpus the knowledge benchmarks index: Zipf-distributed
// made-up words with stop words, headings at three levels and code fences, in 100 directories.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A corpus generator and the seeded random source behind it; the same seed builds the same files. */
export function syntheticCorpus(seed = 42) {
  // mulberry32: a small seeded generator so every run builds the same corpus
  function rng(seed) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const rand = rng(seed);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const SYL = [
    'ka',
    'lo',
    'ri',
    'ten',
    'sto',
    'var',
    'mi',
    'de',
    'pol',
    'cy',
    'ba',
    'ck',
    'up',
    'ser',
    'ver',
    'on',
    'na',
    'tra',
    'shi',
    'for',
    'gel',
    'um',
    'pra',
    'zo',
  ];
  const VOCAB = [];
  const seenWords = new Set();
  while (VOCAB.length < 40_000) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let j = 0; j < n; j++) w += pick(SYL);
    if (seenWords.has(w)) continue;
    seenWords.add(w);
    VOCAB.push(w);
  }
  // stop words make up about a third of real prose
  const COMMON = [
    'the',
    'and',
    'of',
    'to',
    'in',
    'is',
    'for',
    'on',
    'with',
    'as',
    'by',
    'it',
    'be',
    'at',
    'or',
    'this',
    'that',
    'from',
    'are',
    'an',
  ];
  // content words follow Zipf's law (s = 1): cumulative weights for an inverse-CDF draw
  const CDF = [];
  {
    let sum = 0;
    for (let i = 0; i < VOCAB.length; i++) CDF.push((sum += 1 / (i + 1)));
    for (let i = 0; i < CDF.length; i++) CDF[i] /= sum;
  }
  function zipf() {
    const r = rand();
    let lo = 0;
    let hi = CDF.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (CDF[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return VOCAB[lo];
  }
  const word = () => (rand() < 0.33 ? pick(COMMON) : zipf());
  // what someone searching would type: topical words from the middle ranks, sometimes a stop word
  const queryWord = () => VOCAB[50 + Math.floor(rand() * 5000)];
  const sentence = () => {
    const n = 6 + Math.floor(rand() * 14);
    const ws = [];
    for (let i = 0; i < n; i++) ws.push(word());
    return `${ws.join(' ')}.`;
  };
  const paragraph = () => {
    const n = 2 + Math.floor(rand() * 5);
    const out = [];
    for (let i = 0; i < n; i++) out.push(sentence());
    return out.join(' ');
  };
  function document(i) {
    const parts = [`# ${word()} ${word()} ${i}`, '', paragraph(), ''];
    const sections = 4 + Math.floor(rand() * 5);
    for (let s = 0; s < sections; s++) {
      parts.push(`## ${word()} ${word()}`, '', paragraph(), '', paragraph(), '');
      if (rand() < 0.5)
        parts.push('```sh', `${word()} --${word()} ${word()}`, `# ${word()} comment, not a heading`, `${word()} ${word()}`, '```', '');
      if (rand() < 0.5) parts.push(`### ${word()}`, '', paragraph(), '');
    }
    return parts.join('\n');
  }

  function generate(dir, files) {
    let bytes = 0;
    for (let i = 0; i < files; i++) {
      const sub = join(dir, `d${String(i % 100).padStart(3, '0')}`);
      if (i < 100) mkdirSync(sub, { recursive: true });
      const text = document(i);
      bytes += Buffer.byteLength(text);
      writeFileSync(join(sub, `f${i}.md`), text);
    }
    return bytes;
  }
  return { rand, pick, COMMON, queryWord, generate };
}
