/**
 * `fisk info --json` shows the system prompt and the tool definitions exactly as the model receives
 * them: for each provider, with memory (file backend, one stored memory) and knowledge (a built
 * index) enabled, the listing equals the first request a real `fisk run` sends the fake server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply } from '../../src/agenttest/fake-model-server.js';
import { chatCompletion, openaiText } from '../../src/agenttest/openai-wire.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { InfoReport } from '../../src/cli/commands/info.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { FileStore } from '../../src/memory/file/file-store.js';

const app = fileURLToPath(new URL('../fixtures/fisk-app.mjs', import.meta.url));
let fake: FakeModelServer;
let root: string;

beforeAll(async () => {
  fake = await startFakeModelServer();
  root = mkdtempSync(join(tmpdir(), 'fisk-info-eq-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

interface Seen {
  readonly system: string[];
  readonly definitions: unknown[];
}

type Wire = (body: Record<string, unknown>) => Seen;

const anthropicWire: Wire = (body) => ({
  system: (body['system'] as { text: string }[]).map((b) => b.text),
  definitions: (body['tools'] as { name: string; description: string; input_schema: unknown }[]).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
  })),
});

const responsesWire: Wire = (body) => ({
  system: [body['instructions'] as string],
  definitions: (body['tools'] as { name: string; description: string; parameters: unknown }[]).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters,
  })),
});

const chatWire: Wire = (body) => {
  const messages = body['messages'] as { role: string; content: string }[];
  return {
    system: messages.filter((m) => m.role === 'system').map((m) => m.content),
    definitions: (body['tools'] as { function: { name: string; description: string; parameters: unknown } }[]).map((t) => ({
      name: t.function.name,
      description: t.function.description,
      input_schema: t.function.parameters,
    })),
  };
};

interface Case {
  readonly provider: 'anthropic' | 'openai' | 'openai-chat';
  readonly model: string;
  readonly reply: FakeReply;
  readonly wire: Wire;
  /** Whether the provider joins the system segments into one text. */
  readonly joined: boolean;
}

const CASES: readonly Case[] = [
  { provider: 'anthropic', model: 'claude-sonnet-4-6', reply: anthropicText('done'), wire: anthropicWire, joined: false },
  { provider: 'openai', model: 'gpt-5', reply: openaiText('done'), wire: responsesWire, joined: true },
  { provider: 'openai-chat', model: 'gpt-4o', reply: chatCompletion('done'), wire: chatWire, joined: true },
];

async function fisk(dir: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], HOME: dir, XDG_STATE_HOME: join(dir, 'state') }, dir);
  const code = await runCli(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** The definition `fisk info` reports, reduced to what every wire carries. */
function comparable(def: unknown): unknown {
  const d = def as { name: string; description: string; inputSchema: unknown };
  return { name: d.name, description: d.description, input_schema: d.inputSchema };
}

describe('fisk info shows what the model receives', () => {
  for (const testCase of CASES) {
    it(`${testCase.provider}: system segments and tool definitions equal the captured request`, async () => {
      const dir = join(root, testCase.provider);
      mkdirSync(join(dir, 'docs'), { recursive: true });
      writeFileSync(join(dir, 'docs/backups.md'), '# Backups\n\nBackups are kept for thirty days.\n');
      writeFileSync(
        join(dir, 'agent.yaml'),
        `identity: eq-${testCase.provider}
application_path: ${app}
system_prompt: You help the operator with backups.
llm:
  provider: ${testCase.provider}
  model: ${testCase.model}
  no_tool_search: true
harness:
  memory: {enabled: true, backend: file, options: {directory: mem}}
  knowledge: {enabled: true, paths: [docs], directory: kb}
`,
      );
      const store = await FileStore.open(join(dir, 'mem'));
      await store.create('retention', 'how long backups are kept', 'thirty days');
      const built = await fisk(dir, ['knowledge', 'index']);
      expect(built.code, built.err).toBe(EXIT.ok);

      const listed = await fisk(dir, ['info', '--json']);
      expect(listed.code, listed.err).toBe(EXIT.ok);
      const report = JSON.parse(listed.out) as InfoReport;

      fake.reset();
      fake.reply(testCase.reply);
      const ran = await fisk(dir, ['run', '--base-url', fake.url, '--api-key', 'k', 'how long are backups kept?']);
      expect(ran.code, ran.err).toBe(EXIT.ok);
      expect(fake.requests).toHaveLength(1);
      const seen = testCase.wire(fake.requests[0]?.body as Record<string, unknown>);

      // the listing really carries memory and knowledge, so the equality below covers them
      expect(report.system.join('\n')).toContain('retention');
      expect(report.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['memory_read', 'knowledge_search']));
      expect(testCase.joined ? [report.system.join('\n\n')] : report.system).toEqual(seen.system);
      expect(report.tools.map((t) => comparable(t.definition))).toEqual(seen.definitions);
    });
  }
});
