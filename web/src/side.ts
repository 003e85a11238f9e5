/** The panel beside the conversation: a cited passage, or the list of journaled sessions. */
import { post } from './api.js';
import { $, el } from './dom.js';

const side = $('side');
const sideTitle = $('side-title');
const sideBody = $('side-body');
/** Where the focus was before the panel opened, to return it there. */
let before: HTMLElement | undefined;

function show(title: string): void {
  if (side.hidden) before = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  side.hidden = false;
  sideTitle.textContent = title;
  sideBody.replaceChildren(el('p', 'muted', 'loading…'));
}

export function sideOpen(): boolean {
  return !side.hidden;
}

export function closeSide(): void {
  side.hidden = true;
  before?.focus();
  before = undefined;
}

$('side-close').addEventListener('click', () => closeSide());

/** What `fisk knowledge show` prints for a citation: the heading path and the chunk. */
export async function openCitation(ref: string): Promise<void> {
  show(ref);
  const res = await fetch(`/api/citation?ref=${encodeURIComponent(ref)}`);
  const body = (await res.json()) as { heading?: string; content?: string; error?: string };
  sideBody.replaceChildren();
  if (!res.ok) {
    sideBody.append(el('p', 'error', body.error ?? `${res.status}`));
    return;
  }
  const chunk = el('article', 'chunk');
  chunk.dataset['ref'] = ref;
  if (body.heading !== undefined && body.heading !== '') chunk.append(el('h3', undefined, `# ${body.heading}`));
  chunk.append(el('pre', undefined, body.content ?? ''));
  sideBody.append(chunk);
  ($('side-close') as HTMLButtonElement).focus();
}

/** The journaled runs, newest first, each with a button that replays it; `canOpen` says whether this tab may. */
export async function openSessions(canOpen: () => boolean): Promise<void> {
  show('Sessions');
  const res = await fetch('/api/sessions');
  const body = (await res.json()) as {
    sessions?: { runId: string; status: string; updated: string; prompt: string; model: string }[];
    error?: string;
  };
  sideBody.replaceChildren();
  if (!res.ok || body.sessions === undefined) {
    sideBody.append(el('p', 'error', body.error ?? `${res.status}`));
    return;
  }
  if (body.sessions.length === 0) sideBody.append(el('p', 'muted', 'No journaled sessions yet.'));
  const list = el('ul', 'sessions');
  for (const session of body.sessions) {
    const item = el('li');
    item.dataset['runId'] = session.runId;
    const open = el('button', 'open-session', 'Open');
    open.type = 'button';
    open.disabled = !canOpen();
    open.setAttribute('aria-label', `Open session ${session.runId}`);
    open.addEventListener('click', () => {
      void post('/api/reopen', { runId: session.runId }).then((refused) => {
        if (refused === undefined) closeSide();
        else sideBody.prepend(el('p', 'error', refused));
      });
    });
    item.append(
      el('div', 'session-prompt', session.prompt === '' ? '(no prompt)' : session.prompt),
      el('div', 'muted', `${session.status} · ${session.updated.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} · ${session.runId}`),
      open,
    );
    list.append(item);
  }
  sideBody.append(list);
  list.querySelector<HTMLButtonElement>('button.open-session:not(:disabled)')?.focus();
}
