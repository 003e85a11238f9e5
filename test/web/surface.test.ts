/**
 * `fisk web` as a person meets it: answers typed into a question reach the run, a reopened session
 * looks as the live run did, the page shows life while the model thinks, output folds by height,
 * Markdown and HTML read well, the keyboard reaches what matters, a phone fits it, axe-core finds
 * nothing in light or dark mode, and a wrong address or a reload does not leave anyone stuck.
 * Screenshots land in .tmp/web-screenshots.
 */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply } from '../../src/agenttest/fake-model-server.js';
import { anthropicEventStream } from '../../src/agenttest/sse-wire.js';
import { ROOT, runFisk } from '../cli/support.js';
import { axeViolations, ensureBrowserAndBuild, launchBrowser, openPage, send, SHOTS, startWeb, turnsEnded } from './support.js';
import type { WebUnderTest } from './support.js';

const streamed = (reply: FakeReply): FakeReply => anthropicEventStream(reply);

let fake: FakeModelServer;
let web: WebUnderTest;
let desktop: BrowserContext;
let page: Page;
const extra: BrowserContext[] = [];

beforeAll(async () => {
  ensureBrowserAndBuild();
  fake = await startFakeModelServer();
  web = await startWeb(
    [
      'identity: web-surface',
      `application_path: ${join(ROOT, 'test/fixtures/web-app.mjs')}`,
      'system_prompt: You look after streams.',
      'llm:',
      '  model: claude-fake-1',
      `  base_url: ${fake.url}`,
      'harness:',
      '  confirm_tags: [impact:rw]',
      '  knowledge:',
      '    enabled: true',
      '    paths: [docs]',
      '  human_in_the_loop:',
      '    enabled: true',
      '',
    ].join('\n'),
    { 'docs/retention.md': '# Retention\n\nOrders are kept for 30 days, then purged by the nightly job.\n' },
  );
  const indexed = await runFisk(['knowledge', 'index', '--config', 'agent.yaml'], web.dir, web.env);
  expect(indexed.code, indexed.stderr).toBe(0);
  desktop = await launchBrowser();
  page = await openPage(desktop, web.url, true);
}, 120_000);

afterAll(async () => {
  for (const c of extra) await c.close();
  await desktop?.close();
  await web?.close();
  await fake?.close();
}, 60_000);

/**
 * Every approval note as a person reads it, with its look and the tool card it follows: what was
 * decided and which tag gated it.
 */
function decisions(p: Page): Promise<string[]> {
  // an expression, not a function: a string given to evaluate is evaluated as it stands
  return p.evaluate<string[]>(
    "(() => { const nodes = Array.from(document.querySelectorAll('#log .tool, #log .note')); return nodes.map((n, i) => n.dataset.outcome === undefined ? '' : (nodes.slice(0, i).filter((m) => m.classList.contains('tool')).at(-1)?.dataset.callId ?? '') + ' | ' + n.className + ' | ' + n.dataset.outcome + ' | ' + n.textContent).filter((x) => x !== ''); })()",
  );
}

/** Every tool card as a person reads it: name, state and output. */
function cards(p: Page): Promise<string[]> {
  return p.evaluate<string[]>(
    "Array.from(document.querySelectorAll('.tool')).map((n) => n.querySelector('.tool-head').textContent + ' | ' + (n.querySelector('pre.output')?.textContent ?? ''))",
  );
}

describe('fisk web for a person', () => {
  it('has the prompt focused once the page has loaded', async () => {
    expect(await page.evaluate('document.activeElement?.id')).toBe('prompt');
  });

  it('sends an answer typed into a question with Enter, and the run receives it', async () => {
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_input', name: 'ask_human_input', input: { question: 'Which stream should I look at?' } }])),
      streamed(anthropicText('Looking at audit.')),
    );
    await send(page, 'Look at a stream.');
    const dialog = page.locator('dialog#question[open]');
    await dialog.waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('question-input');
    await page.keyboard.type('audit');
    await page.keyboard.press('Enter');
    await turnsEnded(page, 1);
    expect(await page.locator('.tool[data-call-id="toolu_input"] pre.output').textContent()).toContain('"value":"audit"');
    expect(fake.requests.at(-1)?.bodyText).toContain('audit');
    expect(await page.locator('.note.answered').textContent()).toBe('Answered "audit" to: Which stream should I look at?');
    expect(await dialog.count()).toBe(0);
  });

  it('shows a spinner and the time going by while the model thinks, before its first word', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.reply({ ...streamed(anthropicText('Thought it over.')), until: held });
    await send(page, 'Think hard.');
    const activity = page.locator('#activity[data-doing="thinking"]');
    await activity.waitFor();
    expect(await activity.locator('.spinner').isVisible()).toBe(true);
    const first = await activity.textContent();
    expect(first).toMatch(/^Waiting for the model · \d+s$/);
    // nothing has arrived from the model, yet the page keeps showing it is alive
    await expect.poll(() => activity.textContent(), { timeout: 15_000 }).not.toBe(first);
    expect(await page.locator('.assistant').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'thinking.png') });
    // a reload during the call counts on from when the server began it, not from the reload
    const seconds = (text: string | null): number => Number(/· (\d+)s$/.exec(text ?? '')?.[1] ?? -1);
    await expect.poll(async () => seconds(await activity.textContent()), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const before = seconds(await activity.textContent());
    await page.reload();
    await page.locator('body[data-control="true"]').waitFor();
    await activity.waitFor();
    expect(seconds(await activity.textContent())).toBeGreaterThanOrEqual(before);
    release();
    await turnsEnded(page, 2);
    expect(await page.locator('#activity').isHidden()).toBe(true);
  });

  it('folds tall output by its height, and strips escape sequences from output and prompts', async () => {
    fake.reply(
      streamed(
        anthropicToolUse([
          { id: 'toolu_wide', name: 'wide', input: {} },
          { id: 'toolu_colour', name: 'colour', input: {} },
        ]),
      ),
      streamed(anthropicText('Printed both.')),
    );
    await send(page, 'Print \u001b[31mboth\u001b[0m.');
    await turnsEnded(page, 3);
    expect(await page.locator('.user').last().textContent()).toBe('Print both.');
    const wide = page.locator('.tool[data-call-id="toolu_wide"]');
    expect(await wide.locator('.output-box').getAttribute('data-folded')).toBe('true');
    const height = (): Promise<number> =>
      page.evaluate<number>(`document.querySelector('.tool[data-call-id="toolu_wide"] pre.output').getBoundingClientRect().height`);
    const folded = await height();
    expect(folded).toBeLessThan(220);
    await page.screenshot({ path: join(SHOTS, 'folded.png') });
    await wide.locator('.fold-toggle').click();
    expect(await height()).toBeGreaterThan(folded * 3);
    expect(await wide.locator('.fold-toggle').getAttribute('aria-expanded')).toBe('true');
    const colour = await page.locator('.tool[data-call-id="toolu_colour"] pre.output').textContent();
    expect(colour).toBe('red and plain');
  });

  it('draws tables with borders and shows HTML the model writes as text', async () => {
    const answer = [
      '| stream | kept |',
      '| --- | --- |',
      '| orders | 30 days |',
      '',
      'Use <b>care</b>: <img src="x" onerror="document.body.dataset.pwned=1"> is not an image.',
      '',
      '<div>a block</div>',
    ].join('\n');
    fake.reply(streamed(anthropicText(answer)));
    await send(page, 'Show me a table.');
    await turnsEnded(page, 4);
    const final = page.locator('.assistant.final').last();
    expect(await final.locator('td').first().textContent()).toBe('orders');
    const border = await page.evaluate<string>(
      "(() => { const s = getComputedStyle([...document.querySelectorAll('.assistant.final')].at(-1).querySelector('td')); return s.borderTopStyle + ' ' + s.borderTopWidth; })()",
    );
    expect(border).toBe('solid 1px');
    const shown = (await final.textContent()) ?? '';
    expect(shown).toContain('Use <b>care</b>: <img src="x" onerror="document.body.dataset.pwned=1"> is not an image.');
    expect(shown).toContain('<div>a block</div>');
    expect(await final.locator('img, b, div').count()).toBe(0);
    expect(await page.evaluate('document.body.dataset.pwned')).toBeUndefined();
    await final.screenshot({ path: join(SHOTS, 'table.png') });
  });

  it('shows which tier answered a knowledge search in words, once', async () => {
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_know', name: 'knowledge_search', input: { query: 'how long are orders kept' } }])),
      streamed(anthropicText('30 days (docs/retention.md#0).')),
    );
    await send(page, 'How long are orders kept?');
    await turnsEnded(page, 5);
    const out = (await page.locator('.tool[data-call-id="toolu_know"] pre.output').textContent()) ?? '';
    expect(out).toContain('"tier":"lexical (FTS5 BM25)"');
    expect(out).not.toContain('tier: ');
  });

  it('says what was decided and which tag gated the call, and a reopened session shows the decline as the live run did', async () => {
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_deny', name: 'purge', input: { stream: 'orders' } }])),
      streamed(anthropicToolUse([{ id: 'toolu_allow', name: 'purge', input: { stream: 'audit' } }])),
      streamed(anthropicText('Purged audit only.')),
    );
    await send(page, 'Purge orders, then audit.');
    const dialog = page.locator('dialog#question[open]');
    await dialog.waitFor();
    expect(await dialog.locator('#question-gate').textContent()).toBe('Gated by the tag impact:rw.');
    await page.keyboard.press('Enter');
    await page.locator('.tool[data-call-id="toolu_allow"]').waitFor();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Yes, run it once' }).click();
    await turnsEnded(page, 6);
    const notes = await page.locator('.note.answered[data-question]').allTextContents();
    expect(notes.slice(-2)).toEqual([
      'Declined (gated by impact:rw): purge -- orders',
      'Approved once (gated by impact:rw): purge -- audit',
    ]);
    const denied = page.locator('.tool[data-call-id="toolu_deny"]');
    expect(await denied.getAttribute('data-result')).toBe('refused');
    expect(await denied.locator('.tool-state').textContent()).toBe('not run (denied)');
    const live = await cards(page);
    const decidedLive = await decisions(page);
    expect(decidedLive.slice(-2)).toEqual([
      'toolu_deny | note answered | declined | Declined (gated by impact:rw): purge -- orders',
      'toolu_allow | note answered | approved_once | Approved once (gated by impact:rw): purge -- audit',
    ]);

    await page.locator('#new-button').click();
    await expect.poll(() => page.locator('#log > *').count()).toBe(0);
    await page.locator('#sessions-button').click();
    const item = page.locator('#side .sessions li').first();
    await item.waitFor();
    await item.locator('button.open-session').click();
    await page.locator('.reopened').waitFor();
    const replayed = page.locator('.tool[data-call-id="toolu_deny"]');
    expect(await replayed.getAttribute('data-result')).toBe('refused');
    expect(await replayed.locator('.tool-state').textContent()).toBe('not run (denied)');
    expect(await cards(page)).toEqual(live);
    // the notes of what was decided, and which tag gated each call, as the live run left them
    expect(await decisions(page)).toEqual(decidedLive);
    expect(await page.locator('#status').textContent()).toBe('completed');
    await page.screenshot({ path: join(SHOTS, 'reopened.png'), fullPage: true });
  });

  it('declines with a reason: the model is told what to do instead, and the replay shows it', async () => {
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_reason', name: 'purge', input: { stream: 'orders' } }])),
      streamed(anthropicText('I will archive it first.')),
    );
    const turns = await page.locator('.turn-end').count();
    await send(page, 'Purge orders now.');
    const dialog = page.locator('dialog#question[open]');
    await dialog.waitFor();
    expect(await dialog.locator('.choices button').allTextContents()).toEqual([
      'No, do not run it',
      'Yes, run it once',
      'Yes, and allow this tool for the rest of this run',
      'No, and tell the agent what to do instead',
    ]);
    await dialog.getByRole('button', { name: 'No, and tell the agent what to do instead' }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('question-reason-text');
    await page.keyboard.type('archive it first');
    await page.screenshot({ path: join(SHOTS, 'decline-reason.png') });
    await page.keyboard.press('Enter');
    await turnsEnded(page, turns + 1);
    const card = page.locator('.tool[data-call-id="toolu_reason"]');
    expect(await card.locator('.tool-state').textContent()).toBe('not run (denied)');
    expect(await card.locator('pre.output').textContent()).toContain('"operator_reason":"archive it first"');
    expect(fake.requests.at(-1)?.bodyText).toContain('archive it first');
    expect(await page.locator('.note.answered[data-question]').last().textContent()).toBe(
      'Declined (gated by impact:rw): purge -- orders; you told the agent: archive it first',
    );
    const live = await cards(page);
    const decidedLive = await decisions(page);
    expect(decidedLive.at(-1)).toBe(
      'toolu_reason | note answered | declined | Declined (gated by impact:rw): purge -- orders; you told the agent: archive it first',
    );
    await page.locator('#sessions-button').click();
    const item = page.locator('#side .sessions li').first();
    await item.waitFor();
    await item.locator('button.open-session').click();
    await expect.poll(() => page.locator('.reopened').count()).toBe(1);
    expect(await cards(page)).toEqual(live);
    expect(await decisions(page)).toEqual(decidedLive);
  });

  it('lets Tab reach the prompt before any tool card, and Escape close the side panel', async () => {
    await page.evaluate('document.activeElement?.blur()');
    const visited: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate<string>(
        "(() => { const a = document.activeElement; return a === null ? '' : a.closest('.tool') !== null ? 'tool card' : a.id === '' ? a.tagName : '#' + a.id; })()",
      );
      visited.push(where);
      if (where === '#prompt') break;
    }
    expect(visited.at(-1)).toBe('#prompt');
    expect(visited).not.toContain('tool card');
    await page.locator('#sessions-button').click();
    await page.locator('#side:not([hidden])').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#side[hidden]').waitFor({ state: 'attached' });
    expect(await page.locator('#side').isHidden()).toBe(true);
  });

  it('keeps control in a tab that reloads while another tab watches', async () => {
    const watcher = await openPage(desktop, new URL(`${web.url.origin}/`), false);
    await page.reload();
    await page.locator('body[data-control="true"]').waitFor();
    expect(await watcher.locator('body').getAttribute('data-control')).toBe('false');
    expect(await watcher.locator('#readonly').isVisible()).toBe(true);
    // the watcher cannot take control by asking: only the tab that had it can
    const refused = await watcher.evaluate<number>(
      "fetch('/api/new', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tab: 'guess' }) }).then((r) => r.status)",
    );
    expect(refused).toBe(409);
    await watcher.close();
  });

  it('answers a wrong or old token with a page that says what to do', async () => {
    const other = await desktop.newPage();
    const res = await other.goto(`${web.url.origin}/?token=${'x'.repeat(web.token.length)}`);
    expect(res?.status()).toBe(401);
    expect(res?.headers()['content-type']).toContain('text/html');
    expect(await other.locator('h1').textContent()).toBe('This address does not open this agent');
    expect(await other.locator('main').textContent()).toContain('Open the address fisk web printed');
    await other.screenshot({ path: join(SHOTS, 'wrong-token.png') });
    await other.close();
  });

  it('fits a 390 px phone: the header wraps, every button is on screen, the approval dialog fits', async () => {
    await page.close();
    const phone = await launchBrowser({ width: 390, height: 844, mobile: true });
    extra.push(phone);
    page = await openPage(phone, web.url, true);
    const overflow = (): Promise<number> => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    for (const id of ['#sessions-button', '#new-button', '#suspend-button', '#cancel-button', '#send']) {
      const box = await page.locator(id).boundingBox();
      expect(box, id).not.toBeNull();
      expect(box?.x ?? -1, id).toBeGreaterThanOrEqual(0);
      expect((box?.x ?? 0) + (box?.width ?? 0), id).toBeLessThanOrEqual(390);
    }
    fake.reply(
      streamed(
        anthropicToolUse([
          { id: 'toolu_phone', name: 'purge', input: { stream: 'orders-with-a-rather-long-name-that-must-wrap-somewhere-on-a-phone' } },
        ]),
      ),
      streamed(anthropicToolUse([{ id: 'toolu_phone_wide', name: 'wide', input: {} }])),
      streamed(
        anthropicText(
          '| a | b |\n| --- | --- |\n| a very long cell that keeps going and going | another very long cell that keeps going |',
        ),
      ),
    );
    await send(page, 'Purge orders from my phone.');
    const dialog = page.locator('dialog#question[open]');
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box).not.toBeNull();
    expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
    expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(844);
    for (const button of await dialog.locator('.choices button').all()) expect(await button.isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'phone-approval.png') });
    await page.keyboard.press('Enter');
    await page.locator('.turn-end').last().waitFor();
    await page.locator('.tool[data-call-id="toolu_phone_wide"][data-result]').waitFor();
    await expect.poll(() => page.locator('.assistant.final').count()).toBeGreaterThan(0);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true });
    // the narrowest screen the page is made for
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await overflow()).toBeLessThanOrEqual(0);
    for (const id of ['#sessions-button', '#new-button', '#suspend-button', '#cancel-button', '#send']) {
      const at = await page.locator(id).boundingBox();
      expect((at?.x ?? 0) + (at?.width ?? 0), id).toBeLessThanOrEqual(360);
    }
    await page.screenshot({ path: join(SHOTS, 'phone-360.png') });
  });

  it('has nothing axe-core reports, in light and in dark mode, for the controlling tab and a watching one', async () => {
    const watching = await openPage(desktop, new URL(`${web.url.origin}/`), false);
    for (const view of [page, watching]) {
      for (const scheme of ['light', 'dark'] as const) {
        await view.emulateMedia({ colorScheme: scheme });
        expect(await axeViolations(view), `${view === page ? 'controlling' : 'watching'} tab, ${scheme}`).toEqual([]);
      }
    }
    // the read-only banner follows dark mode
    await watching.emulateMedia({ colorScheme: 'dark' });
    expect(await watching.evaluate<string>("getComputedStyle(document.getElementById('readonly')).backgroundColor")).not.toBe(
      'rgb(255, 244, 206)',
    );
    await watching.screenshot({ path: join(SHOTS, 'dark-readonly.png') });
    // a completed answer's pill, the side panel and the approval dialog in dark mode too
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.locator('#status').getAttribute('data-state')).toBe('completed');
    await page.locator('#sessions-button').click();
    await page.locator('#side .sessions li').first().waitFor();
    expect(await axeViolations(page), 'side panel, dark').toEqual([]);
    await page.keyboard.press('Escape');
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_dark', name: 'purge', input: { stream: 'orders' } }])),
      streamed(anthropicText('Left alone.')),
    );
    const turns = await page.locator('.turn-end').count();
    await send(page, 'Purge orders in the dark.');
    await page.locator('dialog#question[open]').waitFor();
    expect(await axeViolations(page), 'approval dialog, dark').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'dark-approval.png') });
    await page.keyboard.press('Escape');
    await turnsEnded(page, turns + 1);
    expect(await page.locator('.tool[data-call-id="toolu_dark"]').getAttribute('data-result')).toBe('refused');
    await watching.close();
  });

  it('tells an open page whose server was restarted to open the new address', async () => {
    const port = Number(web.url.port);
    await web.close(true);
    const lost = page.locator('.error.expired');
    // the old server is gone: the page notices, then finds a new start on the same port with a new token
    await page.locator('#status', { hasText: 'disconnected' }).waitFor();
    web = await startWeb(
      [
        'identity: web-surface',
        'system_prompt: You look after streams.',
        'llm:',
        '  model: claude-fake-1',
        `  base_url: ${fake.url}`,
        '',
      ].join('\n'),
      {},
      { dir: web.dir, port },
    );
    await lost.waitFor({ timeout: 20_000 });
    expect(await lost.textContent()).toContain('Open the address it printed when it started');
    expect(await page.locator('#status').textContent()).toBe('address expired');
  });
});
