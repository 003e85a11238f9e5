/**
 * Every `fisk ...` command shown in README.md and docs/ names a command that exists and only flags
 * that command (or its group) accepts. Commands are checked against the real program definition,
 * without running them, so a renamed flag or a removed command fails here before a reader meets it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { captureIo } from '../src/cli/test-io.js';

const ROOT = join(import.meta.dirname, '..');
const PAGES = [
  'README.md',
  'examples/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface Shown {
  readonly page: string;
  readonly text: string;
}

/** The `fisk` command lines of a page: lines of shell blocks and inline code spans. */
export function shownCommands(page: string, markdown: string): Shown[] {
  const out: Shown[] = [];
  let inShell = false;
  for (const line of markdown.split('\n')) {
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence !== null) {
      inShell = !inShell && ['sh', 'bash', 'shell', 'console'].includes(fence[1] ?? '');
      continue;
    }
    if (inShell) {
      const m = /^\s*(?:\$\s*)?(?:npx\s+)?(fisk\s.*)$/.exec(line);
      if (m?.[1] !== undefined) out.push({ page, text: m[1] });
      continue;
    }
    for (const span of line.matchAll(/`(?:npx )?(fisk [^`]+)`/g)) if (span[1] !== undefined) out.push({ page, text: span[1] });
  }
  return out;
}

/** The words of a command line up to the first placeholder, pipe, comment or quoted argument. */
function words(text: string): string[] {
  const out: string[] = [];
  for (const w of text.replace(/\s+#.*$/, '').split(/\s+/)) {
    if (w === '' || /^[|&;>]/.test(w) || /[[<{'"\\…|]|\.\.\./.test(w) || /^[A-Z][A-Z_]*$/.test(w)) break;
    out.push(w);
  }
  return out;
}

function longFlags(cmd: Command): Set<string> {
  const flags = new Set<string>(['--help', '-h']);
  for (let c: Command | null = cmd; c !== null; c = c.parent) {
    for (const o of c.options) {
      if (o.long !== undefined) flags.add(o.long);
      if (o.short !== undefined) flags.add(o.short);
      if (o.negate && o.long !== undefined) flags.add(o.long);
    }
  }
  return flags;
}

/** What is wrong with one shown command, or undefined when it names a real command and real flags. */
export function problem(program: Command, text: string): string | undefined {
  const ws = words(text);
  if (ws[0] !== 'fisk') return `does not start with fisk`;
  let cmd = program;
  let i = 1;
  for (; i < ws.length; i++) {
    const w = ws[i] ?? '';
    if (w.startsWith('-')) break;
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub === undefined) {
      if (cmd.commands.length > 0 && cmd === program) return `unknown command ${JSON.stringify(w)}`;
      if (cmd.commands.length > 0 && cmd.registeredArguments.length === 0)
        return `unknown subcommand ${JSON.stringify(w)} of ${cmd.name()}`;
      continue; // a positional argument
    }
    cmd = sub;
  }
  const flags = longFlags(cmd);
  for (const w of ws.slice(1)) {
    if (!w.startsWith('-')) continue;
    const flag = w.split('=')[0] ?? w;
    if (!flags.has(flag)) return `${cmd.name()} has no flag ${flag}`;
  }
  return undefined;
}

describe('commands shown in the docs', () => {
  const program = buildProgram(captureIo());
  const shown = PAGES.flatMap((page) => shownCommands(page, readFileSync(join(ROOT, page), 'utf8')));

  it('finds the commands the pages show', () => {
    expect(shown.length).toBeGreaterThan(30);
    expect(shown.some((s) => s.text.startsWith('fisk memory ls --config agent.yaml'))).toBe(true);
    expect(new Set(shown.map((s) => s.page))).toContain('docs/knowledge.md');
  });

  it('each names an existing command and only flags it accepts', () => {
    const wrong = shown.map((s) => ({ ...s, problem: problem(program, s.text) })).filter((s) => s.problem !== undefined);
    expect(wrong.map((w) => `${w.page}: ${w.text}: ${w.problem ?? ''}`)).toEqual([]);
  });

  it('catches a flag or a command that does not exist', () => {
    expect(problem(program, 'fisk run --frobnicate')).toBe('run has no flag --frobnicate');
    expect(problem(program, 'fisk frobnicate')).toBe('unknown command "frobnicate"');
    expect(problem(program, 'fisk knowledge serch x')).toBe('unknown subcommand "serch" of knowledge');
    expect(problem(program, 'fisk rag search --top-k 3 deploy')).toBeUndefined();
  });
});
