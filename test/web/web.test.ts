/**
 * `fisk web` end to end: the built CLI as a child process, the fake model server behind it, and
 * Debian's chromium driven through playwright-core. The page must stream, ask before a gated tool
 * runs (No by default), open citations, replay sessions and refuse requests without the token or
 * from a foreign Host or Origin. Screenshots of the main states land in .tmp/web-screenshots.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply } from '../../src/agenttest/fake-model-server.js';
import { anthropicEventStream } from '../../src/agenttest/sse-wire.js';
import { ensureBuilt, MAIN, ROOT, runFisk } from '../cli/support.js';

const CHROMIUM = '/usr/bin/chromium';
const FIXTURE = join(ROOT, 'test/fixtures/fisk-app.mjs');
const SHOTS = join(ROOT, '.tmp/web-screenshots');

let dir: string;
let fake: FakeModelServer;
let child: ChildProcessWithoutNullStreams;
let stderr = '';
let url: URL;
let token: string;
let context: BrowserContext;
let page: Page;

const streamed = (reply: FakeReply): FakeReply => anthropicEventStream(reply);

/** Waits for the first line `fisk web` prints on stdout: the address with its token. */
function firstLine(p: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    p.once('exit', (code) => reject(new Error(`fisk web exited with ${String(code)} before printing its address: ${stderr}`)));
  });
}

/** A plain HTTP request with any Host and Origin, which fetch would not allow. */
function raw(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(url.port), path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function send(p: Page, prompt: string): Promise<void> {
  await p.locator('#prompt').fill(prompt);
  await p.locator('#prompt').press('Enter');
}

/** Waits until the page has shown the end of `n` turns. */
async function turnsEnded(p: Page, n: number): Promise<void> {
  await p
    .locator('.turn-end')
    .nth(n - 1)
    .waitFor();
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install it with apt-get install chromium (.ci/run does)`);
  ensureBuilt();
  if (!existsSync(join(ROOT, 'dist/web/page/index.html'))) throw new Error('the web page is not built; run npm run build');
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'fisk-web-'));
  fake = await startFakeModelServer();
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs/retention.md'), '# Retention\n\nOrders are kept for 30 days, then purged by the nightly job.\n');
  writeFileSync(
    join(dir, 'agent.yaml'),
    [
      'identity: web-test',
      `application_path: ${FIXTURE}`,
      'system_prompt: You look after streams.',
      'llm:',
      '  model: claude-fake-1',
      `  base_url: ${fake.url}`,
      'harness:',
      '  knowledge:',
      '    enabled: true',
      '    paths: [docs]',
      '  human_in_the_loop:',
      '    enabled: true',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, NO_COLOR: '1', ANTHROPIC_API_KEY: 'test-key', XDG_STATE_HOME: join(dir, 'state') };
  const indexed = await runFisk(['knowledge', 'index', '--config', 'agent.yaml'], dir, env);
  expect(indexed.code, indexed.stderr).toBe(0);
  child = spawn(process.execPath, [MAIN, 'web', '--config', 'agent.yaml', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  url = new URL(await firstLine(child));
  token = url.searchParams.get('token') ?? '';
  const profile = mkdtempSync(join(tmpdir(), 'fisk-web-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1200, height: 800 },
  });
  // the profile goes once closing has ended the browser, which writes to it until then, so runs
  // leave none behind
  const close = context.close.bind(context);
  context.close = async (options) => {
    await close(options);
    rmSync(profile, { recursive: true, force: true });
  };
  page = await context.newPage();
  await page.goto(url.href);
  await page.locator('body[data-control="true"]').waitFor();
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (child !== undefined && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  await fake?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('fisk web in a browser', () => {
  it('prints a loopback address with a token and moves the token into a cookie', () => {
    expect(url.hostname).toBe('127.0.0.1');
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(page.url()).not.toContain(token);
  });

  it('streams an answer in pieces, renders Markdown and shows raw HTML from the model as inert text', async () => {
    const answer =
      'Orders are kept for **30 days** (see docs/retention.md#0).\n\n' +
      'Here is a long enough explanation so that the stream arrives in several pieces, one after another, ' +
      'as the model writes it. <img src="x" onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=1</script>';
    fake.reply(
      streamed(
        anthropicMessage(
          [
            { type: 'thinking', thinking: 'The retention policy is in the handbook.', signature: 'sig' },
            { type: 'text', text: answer, citations: [] },
          ],
          { usage: { input_tokens: 1234, output_tokens: 56 } },
        ),
      ),
    );
    await send(page, 'How long are orders kept?');
    await turnsEnded(page, 1);
    const final = page.locator('.assistant.final');
    await expect.poll(() => final.textContent()).toContain('30 days');
    expect(Number(await final.getAttribute('data-fragments'))).toBeGreaterThan(1);
    expect(await final.locator('strong').textContent()).toBe('30 days');
    expect(await page.locator('#log img, #log script').count()).toBe(0);
    expect(await page.evaluate('document.body.dataset.pwned')).toBeUndefined();
    await expect.poll(() => page.locator('#tokens').textContent()).toBe('1234 in / 56 out tokens');
    const thinking = page.locator('details.thinking');
    expect(await thinking.getAttribute('open')).toBeNull();
    expect(await thinking.textContent()).toContain('The retention policy is in the handbook.');
    await page.screenshot({ path: join(SHOTS, 'answer.png') });
  });

  it('opens a cited chunk beside the chat', async () => {
    await page.locator('a.citation[data-ref="docs/retention.md#0"]').click();
    const chunk = page.locator('#side .chunk');
    await chunk.waitFor();
    expect(await chunk.textContent()).toContain('Orders are kept for 30 days, then purged by the nightly job.');
    await page.screenshot({ path: join(SHOTS, 'citation.png') });
    await page.locator('#side-close').click();
  });

  it('asks before a gated tool; No is first and the default, so Enter leaves it unrun', async () => {
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_no', name: 'stream_purge', input: { stream: 'orders' } }])),
      streamed(anthropicText('Left it alone.')),
    );
    await send(page, 'Purge the orders stream.');
    const dialog = page.locator('dialog#question[open]');
    await dialog.waitFor();
    expect(await dialog.locator('#question-text').textContent()).toContain('purge');
    const buttons = await dialog.locator('.choices button').allTextContents();
    expect(buttons[0]).toBe('No, do not run it');
    expect(buttons.slice(1)).toEqual([
      'Yes, run it once',
      'Yes, and allow this tool for the rest of this run',
      'No, and tell the agent what to do instead',
    ]);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('No, do not run it');
    await page.screenshot({ path: join(SHOTS, 'approval.png') });
    await page.keyboard.press('Enter');
    await turnsEnded(page, 2);
    const card = page.locator('.tool[data-call-id="toolu_no"]');
    expect(await card.getAttribute('data-result')).toBe('refused');
    // the follow-up continued the same conversation: the model saw the first answer
    const sent = fake.requests.at(-2)?.bodyText ?? '';
    expect(sent).toContain('How long are orders kept?');
    expect(sent).toContain('Purge the orders stream.');
  });

  it('runs the tool once when Yes, run it once is clicked', async () => {
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_once', name: 'stream_purge', input: { stream: 'orders' } }])),
      streamed(anthropicText('Purged.')),
    );
    await send(page, 'Purge it after all.');
    await page.locator('dialog#question[open]').waitFor();
    await page.getByRole('button', { name: 'Yes, run it once' }).click();
    await turnsEnded(page, 3);
    const card = page.locator('.tool[data-call-id="toolu_once"]');
    expect(await card.getAttribute('data-result')).toBe('ok');
    expect(await card.locator('pre.output').first().textContent()).toContain('"positionals"');
    await page.screenshot({ path: join(SHOTS, 'tool.png') });
  });

  it('shows the conversation again after a reload, and a second tab only watches', async () => {
    await page.reload();
    await page.locator('body[data-control="true"]').waitFor();
    await turnsEnded(page, 3);
    expect(await page.locator('.user').allTextContents()).toEqual([
      'How long are orders kept?',
      'Purge the orders stream.',
      'Purge it after all.',
    ]);
    const second = await context.newPage();
    await second.goto(`${url.origin}/`);
    await second.locator('body[data-control="false"]').waitFor();
    expect(await second.locator('#readonly').isVisible()).toBe(true);
    expect(await second.locator('#send').isDisabled()).toBe(true);
    await turnsEnded(second, 3);
    await second.close();
  });

  it('counts a closed page as no answer', async () => {
    const watcher = await context.newPage();
    await watcher.goto(`${url.origin}/`);
    await watcher.locator('body[data-control="false"]').waitFor();
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_closed', name: 'stream_purge', input: { stream: 'audit' } }])),
      streamed(anthropicText('Nobody answered.')),
    );
    await send(page, 'Purge audit.');
    await page.locator('dialog#question[open]').waitFor();
    await page.close();
    await watcher.locator('body[data-control="true"]').waitFor();
    await turnsEnded(watcher, 4);
    expect(await watcher.locator('.tool[data-call-id="toolu_closed"]').getAttribute('data-result')).toBe('refused');
    page = watcher;
  });

  it('lists journaled sessions and replays one', async () => {
    await page.locator('#new-button').click();
    await expect.poll(() => page.locator('#log > *').count()).toBe(0);
    await page.locator('#sessions-button').click();
    const item = page.locator('#side .sessions li').first();
    await item.waitFor();
    expect(await item.locator('.session-prompt').textContent()).toBe('How long are orders kept?');
    await page.screenshot({ path: join(SHOTS, 'sessions.png') });
    await item.locator('button.open-session').click();
    await page.locator('.reopened').waitFor();
    expect(await page.locator('.user').allTextContents()).toEqual([
      'How long are orders kept?',
      'Purge the orders stream.',
      'Purge it after all.',
      'Purge audit.',
    ]);
    expect(await page.locator('.tool[data-call-id="toolu_once"] pre.output').first().textContent()).toContain('positionals');
    expect(await page.locator('.assistant').last().textContent()).toContain('Nobody answered.');
  });

  it('continues a reopened completed session with the next prompt', async () => {
    fake.reply(streamed(anthropicText('Still 30 days.')));
    await send(page, 'And how long now?');
    await expect.poll(() => page.locator('.assistant.final').last().textContent()).toContain('Still 30 days.');
    expect(await page.locator('.turn-end').last().getAttribute('data-status')).toBe('completed');
    // the replayed conversation stays on the page and reaches the model: the session went on
    expect(await page.locator('.user').allTextContents()).toEqual([
      'How long are orders kept?',
      'Purge the orders stream.',
      'Purge it after all.',
      'Purge audit.',
      'And how long now?',
    ]);
    const sent = fake.requests.at(-1)?.bodyText ?? '';
    expect(sent).toContain('How long are orders kept?');
    expect(sent).toContain('And how long now?');
  });

  it('cancels a run, then resumes it from the session list', async () => {
    await page.locator('#new-button').click();
    await expect.poll(() => page.locator('#log > *').count()).toBe(0);
    fake.reply({ hang: true });
    await send(page, 'Take your time.');
    await page.locator('body[data-busy="true"]').waitFor();
    await page.locator('#cancel-button').click();
    await page.locator('.turn-end').last().waitFor();
    const ended = await page.locator('.turn-end').last().getAttribute('data-status');
    expect(ended).toBe('aborted');
    await page.locator('#sessions-button').click();
    const item = page.locator('#side .sessions li').filter({ hasText: 'Take your time.' });
    await item.waitFor();
    await item.locator('button.open-session').click();
    const resume = page.locator('.reopened button.resume');
    await resume.waitFor();
    fake.reply(streamed(anthropicText('Done at last.')));
    await resume.click();
    await expect.poll(() => page.locator('.assistant.final').last().textContent()).toContain('Done at last.');
    expect(await page.locator('.turn-end').last().getAttribute('data-status')).toBe('completed');
  });

  it('suspends a run with Suspend at its next step, lists it as suspended, and resumes it', async () => {
    await page.locator('#new-button').click();
    await expect.poll(() => page.locator('#log > *').count()).toBe(0);
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_rest', name: 'sleep', input: { seconds: 3 } }])),
      streamed(anthropicText('Rested and done.')),
    );
    await send(page, 'Rest a moment.');
    await page.locator('.tool[data-call-id="toolu_rest"]').waitFor();
    await page.locator('#suspend-button').click();
    // the sleep is a step: it finishes, and the run stops at the boundary after it
    await page.locator('.tool[data-call-id="toolu_rest"][data-result="ok"]').waitFor();
    await page.locator('.turn-end[data-status="suspended"]').waitFor();
    expect(fake.pending).toBe(1);
    await page.locator('#sessions-button').click();
    const item = page.locator('#side .sessions li').filter({ hasText: 'Rest a moment.' });
    await item.waitFor();
    expect(await item.locator('.muted').textContent()).toMatch(/^suspended · /);
    await item.locator('button.open-session').click();
    const resume = page.locator('.reopened button.resume');
    await resume.waitFor();
    await resume.click();
    await expect.poll(() => page.locator('.assistant.final').last().textContent()).toContain('Rested and done.');
    expect(await page.locator('.turn-end').last().getAttribute('data-status')).toBe('completed');
  });

  it('answers no at once to a question asked while no page is open', async () => {
    await page.locator('#new-button').click();
    await expect.poll(() => page.locator('#log > *').count()).toBe(0);
    const before = fake.requests.length;
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_away', name: 'sleep', input: { seconds: 3 } }])),
      streamed(anthropicToolUse([{ id: 'toolu_unseen', name: 'stream_purge', input: { stream: 'orders' } }])),
      streamed(anthropicText('Nobody was there to ask.')),
    );
    await send(page, 'Purge orders while I am away.');
    await page.locator('.tool[data-call-id="toolu_away"]').waitFor();
    await page.close();
    // the question comes up after the page is gone; the run goes on without waiting for anyone
    await expect.poll(() => fake.requests.length, { timeout: 20_000 }).toBe(before + 3);
    page = await context.newPage();
    await page.goto(`${url.origin}/`);
    await page.locator('body[data-control="true"]').waitFor();
    await expect.poll(() => page.locator('.assistant.final').last().textContent()).toContain('Nobody was there to ask.');
    expect(await page.locator('.tool[data-call-id="toolu_unseen"]').getAttribute('data-result')).toBe('refused');
    expect(fake.requests.at(-1)?.bodyText ?? '').toContain('declined');
  });

  it('puts ask_human questions in the same dialog: a choice clicked, Escape as no', async () => {
    fake.reply(
      streamed(
        anthropicToolUse([
          { id: 'toolu_select', name: 'ask_human_select', input: { question: 'Which stream?', options: ['orders', 'audit'] } },
        ]),
      ),
      streamed(anthropicToolUse([{ id: 'toolu_confirm', name: 'ask_human_confirm', input: { question: 'Purge audit now?' } }])),
      streamed(anthropicText('Understood.')),
    );
    const turns = await page.locator('.turn-end').count();
    await send(page, 'Ask me first.');
    const dialog = page.locator('dialog#question[open]');
    await dialog.waitFor();
    expect(await dialog.locator('#question-text').textContent()).toBe('Which stream?');
    expect(await dialog.locator('.choices button').allTextContents()).toEqual(['No answer', 'orders', 'audit']);
    await dialog.getByRole('button', { name: 'audit' }).click();
    await page.locator('.tool[data-call-id="toolu_select"][data-result]').waitFor();
    expect(await page.locator('.tool[data-call-id="toolu_select"] pre.output').textContent()).toContain('"selected":"audit"');
    await dialog.waitFor();
    expect(await dialog.locator('.choices button').allTextContents()).toEqual(['No', 'Yes']);
    await page.keyboard.press('Escape');
    await turnsEnded(page, turns + 1);
    expect(await page.locator('.tool[data-call-id="toolu_confirm"] pre.output').textContent()).toContain('"confirmed":false');
  });

  it('answers bad requests with a status and a message naming what to change', async () => {
    const auth = { host: `127.0.0.1:${url.port}`, cookie: `fisk_web_token_${url.port}=${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const form = await raw('/api/prompt', { ...auth, 'content-type': 'text/plain' }, 'POST', '{"tab":"x","prompt":"hi"}');
    expect(form.status).toBe(415);
    expect(form.body).toContain('application/json');
    expect((await raw('/api/prompt', json, 'POST', '{not json')).status).toBe(400);
    const noTab = await raw('/api/prompt', json, 'POST', '{"prompt":"hi"}');
    expect(noTab.status).toBe(400);
    expect(noTab.body).toContain('tab must be a non-empty string');
    const stranger = await raw('/api/prompt', json, 'POST', '{"tab":"not-a-tab","prompt":"hi"}');
    expect(stranger.status).toBe(409);
    expect(stranger.body).toContain('reload');
    const cite = await raw('/api/citation?ref=docs/retention.md', auth);
    expect(cite.status).toBe(400);
    expect(cite.body).toContain('#<ordinal>');
    expect((await raw('/api/citation?ref=docs/none.md%230', auth)).status).toBe(404);
    expect((await raw('/api/nothing', auth)).status).toBe(404);
    expect((await raw('/api/cancel', auth, 'DELETE')).status).toBe(405);
  });

  it('refuses a request without the token, with a wrong one, or from a foreign Host or Origin', async () => {
    const host = `127.0.0.1:${url.port}`;
    const good = `token=${token}`;
    expect((await raw(`/api/sessions?${good}`, { host })).status).toBe(200);
    expect((await raw('/api/sessions', { host })).status).toBe(401);
    expect((await raw('/', { host })).status).toBe(401);
    expect((await raw(`/api/sessions?token=${'x'.repeat(token.length)}`, { host })).status).toBe(401);
    expect((await raw('/api/sessions', { host, cookie: `fisk_web_token_${url.port}=${token.slice(1)}` })).status).toBe(401);
    expect((await raw('/api/sessions', { host, cookie: `fisk_web_token_${url.port}=${token}` })).status).toBe(200);
    // the cookie of a server on another port is not this one's
    expect((await raw('/api/sessions', { host, cookie: `fisk_web_token_1=${token}` })).status).toBe(401);
    expect((await raw(`/api/sessions?${good}`, { host: `evil.example:${url.port}` })).status).toBe(403);
    expect((await raw(`/api/sessions?${good}`, { host: `127.0.0.1.nip.io:${url.port}` })).status).toBe(403);
    expect((await raw(`/api/sessions?${good}`, { host, origin: 'http://evil.example' })).status).toBe(403);
    expect((await raw(`/api/sessions?${good}`, { host, origin: 'http://127.attacker.example' })).status).toBe(403);
  });
});
