/**
 * The `fisk web` page: renders the run's event stream (the same events the terminal renders) and
 * posts prompts, answers and cancels back. Model text is Markdown rendered through a sanitizer:
 * no raw HTML from the model reaches the page. Everything else is set as text.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

type Json = Record<string, unknown>;

interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** The events the server sends (see src/web/conversation.ts). */
type Incoming =
  | { type: 'control'; tab: string; control: boolean; busy: boolean; agent: string }
  | { type: 'reset' }
  | { type: 'prompt'; text: string }
  | { type: 'run'; runId?: string; resumed: boolean }
  | { type: 'text'; text: string; final: boolean }
  | { type: 'text_fragment'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: Json; via?: string }
  | { type: 'tool_result'; call_id: string; is_error: boolean; output: string; refused?: string; exec?: { command: string; exit_code: number; truncated: boolean } }
  | { type: 'warning'; text: string }
  | { type: 'status'; iteration: number; phase: string; usage: Usage }
  | { type: 'question'; id?: string; kind: 'approval' | 'confirm' | 'select' | 'input'; text: string; options?: string[] }
  | { type: 'answered'; id: string }
  | { type: 'outcome'; status: string; answer: string; message: string; runId?: string }
  | { type: 'reopened'; runId: string; status: string; resumable: boolean }
  | { type: 'crash'; message: string }
  | { type: 'error'; message: string };

/** Lines of tool output shown before the rest is folded away. */
const FOLD_AFTER_LINES = 6;
/** A citation as the knowledge tools print it: a stored path with an extension, `#`, a chunk number. */
const CITATION = /(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]+#\d+)(?![\w#])/g;

function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`the page lacks #${id}`);
  return e;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls !== undefined) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const log = $('log');
const statusPill = $('status');
const tokens = $('tokens');
const sessionLabel = $('session');
const agentName = $('agent');
const promptBox = $('prompt') as HTMLTextAreaElement;
const sendButton = $('send') as HTMLButtonElement;
const cancelButton = $('cancel-button') as HTMLButtonElement;
const suspendButton = $('suspend-button') as HTMLButtonElement;
const newButton = $('new-button') as HTMLButtonElement;
const sessionsButton = $('sessions-button') as HTMLButtonElement;
const readonlyBanner = $('readonly');
const side = $('side');
const sideTitle = $('side-title');
const sideBody = $('side-body');
const dialog = $('question') as HTMLDialogElement;

let tab = '';
let control = false;
let busy = false;
/** The answer being streamed: its element and the text so far. */
let streaming: { el: HTMLElement; text: string; fragments: number; scheduled: boolean } | undefined;
const calls = new Map<string, HTMLElement>();
/** The question the dialog shows, if any. */
let asked: Extract<Incoming, { type: 'question' }> | undefined;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement) {
    node.target = '_blank';
    node.rel = 'noopener noreferrer';
  }
});

/** Markdown to sanitized DOM, with citations turned into links that open the cited chunk. */
function markdown(target: HTMLElement, text: string): void {
  const html = marked.parse(text, { async: false, gfm: true });
  target.replaceChildren(DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'img'] }));
  linkCitations(target);
}

function linkCitations(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    if (n.parentElement?.closest('a') === null || n.parentElement?.closest('a') === undefined) nodes.push(n as Text);
  }
  for (const node of nodes) {
    const value = node.nodeValue ?? '';
    CITATION.lastIndex = 0;
    if (!CITATION.test(value)) continue;
    CITATION.lastIndex = 0;
    const parts = document.createDocumentFragment();
    let at = 0;
    for (const m of value.matchAll(CITATION)) {
      const ref = m[1] ?? '';
      const start = m.index;
      parts.append(value.slice(at, start));
      const a = el('a', 'citation', ref);
      a.href = '#';
      a.dataset['ref'] = ref;
      a.title = 'open the cited passage';
      parts.append(a);
      at = start + m[0].length;
    }
    parts.append(value.slice(at));
    node.replaceWith(parts);
  }
}

function scrollDown(): void {
  const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
  if (nearBottom) window.scrollTo(0, document.body.scrollHeight);
}

function add(node: HTMLElement): HTMLElement {
  log.append(node);
  scrollDown();
  return node;
}

function note(text: string, cls = 'note'): void {
  add(el('div', cls, text));
}

function setBusy(value: boolean): void {
  busy = value;
  refreshControls();
}

function refreshControls(): void {
  readonlyBanner.hidden = control || tab === '';
  const can = control && !busy;
  sendButton.disabled = !control || busy;
  promptBox.disabled = !control;
  newButton.disabled = !can;
  cancelButton.disabled = !control || !busy;
  suspendButton.disabled = !control || !busy;
  document.body.dataset['control'] = String(control);
  document.body.dataset['busy'] = String(busy);
}

async function post(path: string, body: Json): Promise<boolean> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tab, ...body }) });
  if (res.ok) return true;
  let message = `${res.status} ${res.statusText}`;
  try {
    const j = (await res.json()) as { error?: string };
    if (typeof j.error === 'string') message = j.error;
  } catch {
    // the status line says enough
  }
  note(message, 'error');
  return false;
}

function finishStreaming(text: string | undefined): HTMLElement {
  const s = streaming;
  streaming = undefined;
  const target = s?.el ?? add(el('div', 'assistant markdown'));
  target.classList.remove('streaming');
  if (s !== undefined) target.dataset['fragments'] = String(s.fragments);
  markdown(target, text ?? s?.text ?? '');
  return target;
}

function fragment(text: string): void {
  if (streaming === undefined) {
    const target = add(el('div', 'assistant markdown streaming'));
    streaming = { el: target, text: '', fragments: 0, scheduled: false };
  }
  const s = streaming;
  s.text += text;
  s.fragments++;
  s.el.dataset['fragments'] = String(s.fragments);
  if (s.scheduled) return;
  s.scheduled = true;
  requestAnimationFrame(() => {
    s.scheduled = false;
    if (streaming === s) {
      markdown(s.el, s.text);
      scrollDown();
    }
  });
}

function folded(output: string): HTMLElement {
  const lines = output.replace(/\n+$/, '').split('\n');
  // one line more is shown rather than folded behind a summary line of its own
  if (lines.length <= FOLD_AFTER_LINES + 1) return el('pre', 'output', lines.join('\n'));
  const box = el('div', 'folded');
  box.append(el('pre', 'output', lines.slice(0, FOLD_AFTER_LINES).join('\n')));
  const more = el('details');
  more.append(el('summary', undefined, `${lines.length - FOLD_AFTER_LINES} more lines`), el('pre', 'output', lines.slice(FOLD_AFTER_LINES).join('\n')));
  box.append(more);
  return box;
}

function toolCall(e: Extract<Incoming, { type: 'tool_call' }>): void {
  const card = el('div', 'tool');
  card.dataset['callId'] = e.id;
  card.dataset['tool'] = e.name;
  const head = el('div', 'tool-head');
  head.append(el('span', 'tool-name', e.name));
  // an imported tool runs elsewhere: on a peer agent or an MCP server
  if (e.via !== undefined) head.append(el('span', 'tool-via', `on ${e.via}`));
  head.append(el('span', 'tool-state', 'running'));
  const args = el('details', 'tool-args');
  args.open = true;
  args.append(el('summary', undefined, 'arguments'), el('pre', undefined, JSON.stringify(e.input, null, 2)));
  card.append(head, args);
  calls.set(e.id, card);
  add(card);
}

function toolResult(e: Extract<Incoming, { type: 'tool_result' }>): void {
  let card = calls.get(e.call_id);
  if (card === undefined) {
    card = el('div', 'tool');
    card.append(el('div', 'tool-head', e.call_id));
    add(card);
  }
  const state = card.querySelector('.tool-state');
  const label = e.refused !== undefined ? `not run (${e.refused})` : e.is_error ? 'error' : 'done';
  if (state !== null) state.textContent = e.exec === undefined ? label : `${label}, exit ${e.exec.exit_code}${e.exec.truncated ? ', output cut' : ''}`;
  card.classList.add(e.refused !== undefined ? 'refused' : e.is_error ? 'failed' : 'ok');
  card.dataset['result'] = e.refused !== undefined ? 'refused' : e.is_error ? 'error' : 'ok';
  const args = card.querySelector('details.tool-args');
  if (args instanceof HTMLDetailsElement) args.open = false;
  card.append(folded(e.output));
  scrollDown();
}

/** The dialog for a question: the same choices as the terminal, No first and the default. */
function askQuestion(q: Extract<Incoming, { type: 'question' }>): void {
  if (q.id === undefined) return;
  const pending = add(el('div', 'note waiting', q.kind === 'approval' ? `Approval needed: ${q.text}` : `Question: ${q.text}`));
  pending.dataset['question'] = q.id;
  statusPill.textContent = control ? 'waiting for you' : 'waiting for an answer';
  statusPill.dataset['state'] = 'waiting';
  if (!control) return;
  asked = q;
  const title = $('question-title');
  const text = $('question-text');
  const input = $('question-input') as HTMLInputElement;
  const choices = $('question-choices');
  choices.replaceChildren();
  input.hidden = q.kind !== 'input';
  input.value = '';
  const button = (label: string, value: string | boolean | null, cls = ''): HTMLButtonElement => {
    const b = el('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', () => answer(q, value === '\u0000input' ? input.value : value));
    choices.append(b);
    return b;
  };
  let first: HTMLButtonElement;
  switch (q.kind) {
    case 'approval':
      title.textContent = 'Approval needed';
      text.textContent = q.text;
      first = button('No, do not run it', 'decline', 'no');
      button('Yes, run it once', 'once', 'yes');
      button('Yes, and allow this tool for the rest of this run', 'always', 'always');
      break;
    case 'confirm':
      title.textContent = 'Question';
      text.textContent = q.text;
      first = button('No', false, 'no');
      button('Yes', true, 'yes');
      break;
    case 'select':
      title.textContent = 'Choose one';
      text.textContent = q.text;
      first = button('No answer', null, 'no');
      for (const o of q.options ?? []) button(o, o, 'option');
      break;
    case 'input':
      title.textContent = 'Question';
      text.textContent = q.text;
      first = button('No answer', null, 'no');
      button('Send', '\u0000input', 'yes');
      break;
  }
  dialog.showModal();
  if (q.kind === 'input') input.focus();
  else first.focus();
}

function answer(q: Extract<Incoming, { type: 'question' }>, value: string | boolean | null): void {
  if (q.id === undefined) return;
  asked = undefined;
  dialog.close();
  void post('/api/answer', { id: q.id, answer: value });
}

// Escape closes the dialog: that is no answer, which never approves anything
dialog.addEventListener('cancel', (ev) => {
  ev.preventDefault();
  if (asked !== undefined) answer(asked, asked.kind === 'approval' ? 'decline' : null);
});

function answered(id: string): void {
  for (const n of log.querySelectorAll<HTMLElement>('[data-question]')) {
    if (n.dataset['question'] === id) n.classList.replace('waiting', 'answered');
  }
  if (asked?.id === id) {
    asked = undefined;
    dialog.close();
  }
}

function outcome(e: Extract<Incoming, { type: 'outcome' }>): void {
  if (streaming !== undefined) finishStreaming(e.status === 'completed' ? e.answer : undefined);
  statusPill.textContent = e.status;
  statusPill.dataset['state'] = e.status;
  if (e.status === 'suspended') note(`Suspended${e.runId === undefined ? '' : `: reopen session ${e.runId} from Sessions to resume it`}.`);
  else if (e.status !== 'completed') note(`Stopped (${e.status})${e.message === '' ? '' : `: ${e.message}`}`, 'error');
  const done = el('div', 'turn-end');
  done.dataset['status'] = e.status;
  add(done);
}

function reopened(e: Extract<Incoming, { type: 'reopened' }>): void {
  sessionLabel.textContent = `session ${e.runId}`;
  statusPill.textContent = e.status;
  const banner = el('div', 'note reopened', `Reopened session ${e.runId} (${e.status}).`);
  if (e.resumable) {
    const b = el('button', 'resume', 'Resume');
    b.type = 'button';
    b.disabled = !control;
    b.addEventListener('click', () => void post('/api/resume', { runId: e.runId }));
    banner.append(' ', b);
  } else {
    banner.append(' Type a prompt to continue it, or New to start another.');
  }
  add(banner);
}

function handle(e: Incoming): void {
  switch (e.type) {
    case 'control':
      tab = e.tab;
      control = e.control;
      agentName.textContent = e.agent;
      document.title = e.agent === '' ? 'fisk web' : `${e.agent} · fisk web`;
      if (statusPill.textContent === 'connecting' || statusPill.textContent === 'disconnected') statusPill.textContent = e.busy ? 'running' : 'ready';
      setBusy(e.busy);
      if (!control && dialog.open) dialog.close();
      return;
    case 'reset':
      log.replaceChildren();
      calls.clear();
      streaming = undefined;
      sessionLabel.textContent = '';
      tokens.textContent = '';
      statusPill.textContent = 'ready';
      delete statusPill.dataset['state'];
      return;
    case 'prompt': {
      const p = add(el('div', 'user'));
      p.textContent = e.text;
      return;
    }
    case 'run':
      if (e.runId !== undefined) sessionLabel.textContent = `session ${e.runId}`;
      statusPill.textContent = e.resumed ? 'resuming' : 'starting';
      return;
    case 'text_fragment':
      fragment(e.text);
      return;
    case 'text': {
      const target = finishStreaming(e.text);
      target.classList.toggle('final', e.final);
      return;
    }
    case 'thinking': {
      const d = el('details', 'thinking');
      d.append(el('summary', undefined, 'Thinking'), el('pre', undefined, e.text));
      // the reasoning arrives after the answer it led to has streamed: shown before that answer
      if (streaming !== undefined) streaming.el.before(d);
      else add(d);
      return;
    }
    case 'tool_call':
      if (streaming !== undefined) finishStreaming(undefined);
      toolCall(e);
      return;
    case 'tool_result':
      toolResult(e);
      return;
    case 'warning':
      note(`warning: ${e.text}`, 'warning');
      return;
    case 'status':
      statusPill.textContent = `${e.phase} · step ${e.iteration}`;
      statusPill.dataset['state'] = e.phase;
      tokens.textContent = `${e.usage.input_tokens} in / ${e.usage.output_tokens} out tokens`;
      return;
    case 'question':
      askQuestion(e);
      return;
    case 'answered':
      answered(e.id);
      return;
    case 'outcome':
      outcome(e);
      return;
    case 'reopened':
      reopened(e);
      return;
    case 'crash':
      note(`The run crashed: ${e.message}`, 'error');
      return;
    case 'error':
      note(e.message, 'error');
      return;
  }
}

async function openCitation(ref: string): Promise<void> {
  side.hidden = false;
  sideTitle.textContent = ref;
  sideBody.replaceChildren(el('p', 'muted', 'loading…'));
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
}

async function openSessions(): Promise<void> {
  side.hidden = false;
  sideTitle.textContent = 'Sessions';
  sideBody.replaceChildren(el('p', 'muted', 'loading…'));
  const res = await fetch('/api/sessions');
  const body = (await res.json()) as { sessions?: { runId: string; status: string; updated: string; prompt: string; model: string }[]; error?: string };
  sideBody.replaceChildren();
  if (!res.ok || body.sessions === undefined) {
    sideBody.append(el('p', 'error', body.error ?? `${res.status}`));
    return;
  }
  if (body.sessions.length === 0) sideBody.append(el('p', 'muted', 'No journaled sessions yet.'));
  const list = el('ul', 'sessions');
  for (const s of body.sessions) {
    const item = el('li');
    item.dataset['runId'] = s.runId;
    const open = el('button', 'open-session', 'Open');
    open.type = 'button';
    open.disabled = !control || busy;
    open.addEventListener('click', () => {
      void post('/api/reopen', { runId: s.runId }).then((ok) => {
        if (ok) side.hidden = true;
      });
    });
    item.append(el('div', 'session-prompt', s.prompt === '' ? '(no prompt)' : s.prompt), el('div', 'muted', `${s.status} · ${s.updated.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} · ${s.runId}`), open);
    list.append(item);
  }
  sideBody.append(list);
}

log.addEventListener('click', (ev) => {
  const a = (ev.target as HTMLElement).closest('a.citation');
  if (a instanceof HTMLAnchorElement && a.dataset['ref'] !== undefined) {
    ev.preventDefault();
    void openCitation(a.dataset['ref']);
  }
});
$('side-close').addEventListener('click', () => {
  side.hidden = true;
});
sessionsButton.addEventListener('click', () => void openSessions());
newButton.addEventListener('click', () => void post('/api/new', {}));
cancelButton.addEventListener('click', () => void post('/api/cancel', {}));
suspendButton.addEventListener('click', () => void post('/api/suspend', {}));
$('prompt-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const text = promptBox.value.trim();
  if (text === '' || !control || busy) return;
  void post('/api/prompt', { prompt: text }).then((ok) => {
    if (ok) promptBox.value = '';
  });
});
promptBox.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey) {
    ev.preventDefault();
    ($('prompt-form') as HTMLFormElement).requestSubmit();
  }
});

const source = new EventSource('/api/events');
source.onmessage = (m: MessageEvent<string>) => handle(JSON.parse(m.data) as Incoming);
source.onerror = () => {
  statusPill.textContent = 'disconnected';
  control = false;
  tab = '';
  refreshControls();
};
refreshControls();
