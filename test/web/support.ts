/**
 * What the browser tests of `fisk web` share: the built CLI started as a child process in a fresh
 * directory, and Debian's chromium driven through playwright-core (never a downloaded browser).
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureBuilt, MAIN, ROOT } from '../cli/support.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = join(ROOT, '.tmp/web-screenshots');

export interface WebUnderTest {
  readonly dir: string;
  readonly url: URL;
  readonly token: string;
  readonly env: NodeJS.ProcessEnv;
  stderr(): string;
  /** Stops it; `keep` leaves its directory (and journal) for a restart. */
  close(keep?: boolean): Promise<void>;
}

/** Waits for the first line `fisk web` prints on stdout: the address with its token. */
function firstLine(p: ChildProcessWithoutNullStreams, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    p.once('exit', (code) => reject(new Error(`fisk web exited with ${String(code)} before printing its address: ${stderr()}`)));
  });
}

/** Checks what the tests need is there: chromium and the built CLI and page. */
export function ensureBrowserAndBuild(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install it with apt-get install chromium (.ci/run does)`);
  ensureBuilt();
  if (!existsSync(join(ROOT, 'dist/web/page/index.html'))) throw new Error('the web page is not built; run npm run build');
  mkdirSync(SHOTS, { recursive: true });
}

/** Starts `fisk web --port 0` on `agentYaml` in a fresh directory; `files` are written there first. */
export async function startWeb(
  agentYaml: string,
  files: Readonly<Record<string, string>> = {},
  opts: { readonly dir?: string; readonly port?: number } = {},
): Promise<WebUnderTest> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'fisk-web-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  writeFileSync(join(dir, 'agent.yaml'), agentYaml);
  const env = { ...process.env, NO_COLOR: '1', ANTHROPIC_API_KEY: 'test-key', XDG_STATE_HOME: join(dir, 'state') };
  let err = '';
  const child = spawn(process.execPath, [MAIN, 'web', '--config', 'agent.yaml', '--port', String(opts.port ?? 0)], {
    cwd: dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = new URL(await firstLine(child, () => err));
  return {
    dir,
    url,
    token: url.searchParams.get('token') ?? '',
    env,
    stderr: () => err,
    async close(keep = false) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh browser profile: the size of a desktop window unless told otherwise. */
export async function launchBrowser(
  opts: { readonly width?: number; readonly height?: number; readonly dark?: boolean; readonly mobile?: boolean } = {},
): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'fisk-web-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
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
    viewport: { width: opts.width ?? 1200, height: opts.height ?? 800 },
    colorScheme: opts.dark === true ? 'dark' : 'light',
    ...(opts.mobile === true ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  // the profile goes once closing has ended the browser, which writes to it until then, so runs
  // leave none behind
  const close = context.close.bind(context);
  context.close = async (options) => {
    await close(options);
    rmSync(profile, { recursive: true, force: true });
  };
  return context;
}

/** Opens the page with its token and waits until the server has said whether this tab controls. */
export async function openPage(context: BrowserContext, url: URL, control: boolean): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url.href);
  await page.locator(`body[data-control="${String(control)}"]`).waitFor();
  return page;
}

export async function send(p: Page, prompt: string): Promise<void> {
  await p.locator('#prompt').fill(prompt);
  await p.locator('#prompt').press('Enter');
}

/** Waits until the page has shown the end of `n` turns. */
export async function turnsEnded(p: Page, n: number): Promise<void> {
  await p
    .locator('.turn-end')
    .nth(n - 1)
    .waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe-core finds wrong with the page as it stands: each violation as `rule: selectors`. */
export async function axeViolations(page: Page): Promise<string[]> {
  // evaluated over the debugging protocol, so the page's own content security policy does not apply
  await page.evaluate(axeSource);
  return page.evaluate<string[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => JSON.stringify(n.target) + ' ' + (n.failureSummary ?? '')).join(' | ')))",
  );
}
