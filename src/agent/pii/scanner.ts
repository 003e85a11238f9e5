/**
 * Finds and redacts PII in text. Building a scanner compiles and runs every detector, so a broken
 * pattern fails the run at start instead of letting unscanned text through. The scanner over the
 * built-in detectors is built once per process (`defaultScanner`) and shared by every run: a scan
 * is synchronous and starts each pattern from the beginning, so runs cannot disturb each other.
 */
import { DETECTORS, markerFor } from './detectors.js';
import type { Detector, Finding, PiiKind } from './detectors.js';

/** The result of redacting one text. */
export interface Redaction {
  readonly text: string;
  /** The kinds found, in first-seen order; empty when nothing was found. */
  readonly kinds: readonly PiiKind[];
}

/** Scans text for PII. */
export interface PiiScanner {
  /** Every hit, ordered by position, overlaps resolved in favour of the earlier detector. */
  scan(text: string): Finding[];
  /** The text with each hit replaced by its kind's marker. */
  redact(text: string): Redaction;
}

interface Compiled {
  readonly detector: Detector;
  readonly regex: RegExp;
}

let shared: PiiScanner | undefined;

/** The scanner over the built-in detectors, built on first use. Throws as `buildScanner` does. */
export function defaultScanner(): PiiScanner {
  shared ??= buildScanner();
  return shared;
}

/** Builds the scanner over the given detectors (all of them by default). Throws if one will not compile. */
export function buildScanner(detectors: readonly Detector[] = DETECTORS): PiiScanner {
  const compiled: Compiled[] = detectors.map((detector) => {
    const flags = new Set(detector.pattern.flags.split(''));
    flags.add('g');
    flags.add('d');
    return { detector, regex: new RegExp(detector.pattern.source, [...flags].join('')) };
  });

  function scan(text: string): Finding[] {
    const taken: Finding[] = [];
    const overlaps = (s: number, e: number): boolean => taken.some((f) => s < f.end && f.start < e);
    for (const { detector, regex } of compiled) {
      regex.lastIndex = 0;
      for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
        if (m[0] === '') {
          regex.lastIndex++;
          continue;
        }
        const span = m.indices?.[detector.group ?? 0];
        if (span === undefined) continue;
        const [start, end] = span;
        if (detector.confirm !== undefined && !detector.confirm(text.slice(start, end), text, start)) continue;
        if (overlaps(start, end)) continue;
        taken.push({ kind: detector.kind, start, end });
      }
    }
    return taken.sort((a, b) => a.start - b.start);
  }

  function redact(text: string): Redaction {
    const findings = scan(text);
    if (findings.length === 0) return { text, kinds: [] };
    let out = '';
    let at = 0;
    const kinds: PiiKind[] = [];
    for (const f of findings) {
      out += text.slice(at, f.start) + markerFor(f.kind);
      at = f.end;
      if (!kinds.includes(f.kind)) kinds.push(f.kind);
    }
    return { text: out + text.slice(at), kinds };
  }

  // Compile-time proof that every pattern runs: a detector that throws on input fails the build here.
  scan('');
  return { scan, redact };
}
