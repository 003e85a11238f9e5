import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Io } from './io.js';
import { runCli } from './program.js';

function terminalIo(columns: number | undefined): Io & { stdout(): string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (columns !== undefined) {
    stream.isTTY = true;
    stream.columns = columns;
  }
  const err = new Writable({ write: (_c, _e, cb) => cb() });
  return { out: stream, err, env: {}, cwd: process.cwd(), stdout: () => out };
}

const longest = (text: string): number => Math.max(...text.split('\n').map((l) => l.length));

describe('fisk help', () => {
  it('lists the commands and shows aliases', async () => {
    const io = terminalIo(undefined);
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.stdout()).toMatch(/serve .*serve the agent: over NATS/);
    // the served channels are named, HTTP ones included, whatever the wrapping
    expect(io.stdout().replace(/\s+/g, ' ')).toContain(
      'answer A2A callers over HTTP (expose.agent.a2a_http) and Slack threads (expose.agent.slack)',
    );
    expect(io.stdout()).toMatch(/knowledge\|rag/);
    expect(io.stdout()).toMatch(/task .*list and show tasks, and submit jobs/);
    expect(io.stdout()).toMatch(/init /);
  });

  it('wraps to the terminal width, and to 80 columns when not a terminal', async () => {
    const narrow = terminalIo(70);
    await runCli(['knowledge', 'index', '--help'], narrow);
    expect(longest(narrow.stdout())).toBeLessThanOrEqual(70);
    const piped = terminalIo(undefined);
    await runCli(['knowledge', 'index', '--help'], piped);
    expect(longest(piped.stdout())).toBeLessThanOrEqual(80);
    expect(longest(piped.stdout())).toBeGreaterThan(70);
  });

  it("lists the group's options in a subcommand's help", async () => {
    const io = terminalIo(undefined);
    await runCli(['knowledge', 'search', '--help'], io);
    expect(io.stdout()).toMatch(/Global Options:[\s\S]*--config <file>/);
    expect(io.stdout()).toMatch(/--store-dir <dir>/);
  });
});

describe('a mistyped flag or command', () => {
  function errIo(): Io & { stderr(): string } {
    let text = '';
    const err = new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        text += chunk.toString();
        cb();
      },
    });
    return { out: new Writable({ write: (_c, _e, cb) => cb() }), err, env: {}, cwd: process.cwd(), stderr: () => text };
  }

  it('says what was wrong, what was meant and where the options are, in three lines', async () => {
    const io = errIo();
    expect(await runCli(['run', '--confg', 'x'], io)).toBe(2);
    expect(io.stderr()).toBe("error: unknown option '--confg'\n(Did you mean --config?)\n(run 'fisk run --help' to see what it takes)\n");
  });

  it('names the nested command whose help to read', async () => {
    const io = errIo();
    expect(await runCli(['knowledge', 'search', '--topk', '3', 'q'], io)).toBe(2);
    expect(io.stderr()).toContain("(Did you mean --top-k?)\n(run 'fisk knowledge search --help' to see what it takes)\n");
    expect(io.stderr()).not.toContain('Usage:');
  });

  it('suggests a command for a mistyped one', async () => {
    const io = errIo();
    expect(await runCli(['serv'], io)).toBe(2);
    expect(io.stderr()).toMatch(/unknown command 'serv'\n\(Did you mean serve\?\)\n\(run 'fisk --help' to see what it takes\)\n$/);
  });
});
