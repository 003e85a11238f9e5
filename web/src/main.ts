/**
 * The `fisk web` page: renders the run's event stream (the same events the terminal renders) and
 * posts prompts, answers and cancels back. Model text is Markdown rendered through a sanitizer;
 * everything else is set as text.
 */
import * as activity from './activity.js';
import { post as request, setTab } from './api.js';
import { $, el } from './dom.js';
import type { Approval, ApprovalOutcome, Incoming, Json, Question } from './events.js';
import { answeredWith, decided, gatedBy } from './notes.js';
import { foldIfTall, outputBox } from './fold.js';
import { markdown } from './markdown.js';
import * as questions from './questions.js';
import { closeSide, openCitation, openSessions, sideOpen } from './side.js';

/** Where this browser tab keeps the key that lets it take control back after a reload. */
const CONTROL_KEY = 'fisk-web-control';

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

let tab = '';
let control = false;
let busy = false;
/** The prompt box has had its first focus since the page loaded. */
let focused = false;
/** The answer being streamed: its element and the text so far. */
let streaming: { el: HTMLElement; text: string; fragments: number; scheduled: boolean } | undefined;
const calls = new Map<string, HTMLElement>();
/** Open questions by id, for the note that says how each was answered. */
const asked = new Map<string, Question>();

function scrollDown(): void {
  const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
  if (nearBottom) window.scrollTo(0, document.body.scrollHeight);
}

function add(node: HTMLElement): HTMLElement {
  log.append(node);
  scrollDown();
  return node;
}

/** How far the server's clock is ahead of this page's, from the last `control` event. */
let skew = 0;

/** When an event happened, on this page's clock; undefined when the server did not say. */
function onPageClock(at: number | undefined): number | undefined {
  return at === undefined ? undefined : at - skew;
}

function note(text: string, cls = 'note'): HTMLElement {
  return add(el('div', cls, text));
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
  if (control && !focused && !questions.open()) {
    focused = true;
    promptBox.focus();
  }
}

/** Posts to the server; a refusal is shown in the conversation. */
async function post(path: string, body: Json): Promise<boolean> {
  const refused = await request(path, body);
  if (refused === undefined) return true;
  note(refused, 'error');
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
  if (activity.current() === 'thinking') activity.show('writing');
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
  if (state !== null)
    state.textContent = e.exec === undefined ? label : `${label}, exit ${e.exec.exit_code}${e.exec.truncated ? ', output cut' : ''}`;
  card.classList.add(e.refused !== undefined ? 'refused' : e.is_error ? 'failed' : 'ok');
  card.dataset['result'] = e.refused !== undefined ? 'refused' : e.is_error ? 'error' : 'ok';
  const args = card.querySelector('details.tool-args');
  if (args instanceof HTMLDetailsElement) args.open = false;
  const box = outputBox(e.output.replace(/\n+$/, ''));
  card.append(box);
  foldIfTall(box);
  scrollDown();
}

function question(q: Question, at: number | undefined): void {
  if (q.id === undefined) return;
  const id = q.id;
  asked.set(id, q);
  const pending = note(q.kind === 'approval' ? `Approval needed${gatedBy(q.trigger)}: ${q.text}` : `Question: ${q.text}`, 'note waiting');
  pending.dataset['question'] = id;
  if (q.kind === 'approval') {
    // the gate's decision comes as its own event, naming the tool: it completes this note
    pending.dataset['approval'] = 'pending';
    pending.dataset['tool'] = q.tool ?? '';
    pending.dataset['text'] = q.text;
  }
  statusPill.textContent = control ? 'waiting for you' : 'waiting for an answer';
  statusPill.dataset['state'] = 'waiting';
  activity.show('waiting', onPageClock(at));
  if (!control) return;
  questions.ask(q, (value) => {
    void post('/api/answer', { id, answer: value });
    promptBox.focus();
  });
}

function answered(e: Extract<Incoming, { type: 'answered' }>): void {
  const q = asked.get(e.id);
  asked.delete(e.id);
  for (const n of log.querySelectorAll<HTMLElement>('[data-question]')) {
    if (n.dataset['question'] !== e.id) continue;
    n.classList.replace('waiting', 'answered');
    if (q === undefined) continue;
    if (e.by === 'no_page') n.dataset['noPage'] = 'true';
    // an approval's note is completed by the gate's decision, which follows
    if (q.kind !== 'approval') n.textContent = `${answeredWith(q, e.answer, e.by)} to: ${q.text}`;
  }
  questions.withdraw(e.id);
  if (activity.current() === 'waiting') activity.show('tools', onPageClock(e.at));
}

/** The gate decided a call: the note of the question it asked says so, or a note of its own when it asked nobody. */
function approval(e: Approval): void {
  let target: HTMLElement | undefined;
  for (const n of log.querySelectorAll<HTMLElement>('[data-approval="pending"]')) {
    if (n.dataset['tool'] === e.tool) {
      target = n;
      break;
    }
  }
  if (target === undefined) {
    const n = note(decisionText(e.outcome, '', e.trigger, e.tool, e.reason), 'note answered');
    n.dataset['outcome'] = e.outcome;
    return;
  }
  const away = target.dataset['noPage'] === 'true' ? ' (no page was open to ask)' : '';
  target.dataset['approval'] = 'decided';
  target.dataset['outcome'] = e.outcome;
  target.classList.replace('waiting', 'answered');
  target.textContent = decisionText(e.outcome, away, e.trigger, target.dataset['text'] ?? e.tool, e.reason);
}

/** A replayed call the gate decided: the note the live run's question ended as. */
function replayedDecision(e: Extract<Incoming, { type: 'decision' }>): void {
  // a decision nobody was asked for (a standing approval, one given while stopped) had no question
  if (e.outcome !== 'approved_once' && e.outcome !== 'approved_for_run' && e.outcome !== 'declined') {
    approval({
      type: 'approval',
      call_id: e.call_id,
      tool: e.tool,
      trigger: e.trigger,
      outcome: e.outcome,
      ...(e.reason === undefined ? {} : { reason: e.reason }),
    });
    return;
  }
  const n = note(decisionText(e.outcome, '', e.trigger, e.text, e.reason), 'note answered');
  n.dataset['question'] = `replayed-${e.call_id}`;
  n.dataset['approval'] = 'decided';
  n.dataset['tool'] = e.tool;
  n.dataset['text'] = e.text;
  n.dataset['outcome'] = e.outcome;
}

function decisionText(outcome: ApprovalOutcome, away: string, trigger: string, what: string, reason: string | undefined): string {
  return `${decided(outcome)}${away}${gatedBy(trigger)}: ${what}${reason === undefined ? '' : `; you told the agent: ${reason}`}`;
}

function outcome(e: Extract<Incoming, { type: 'outcome' }>): void {
  if (streaming !== undefined) finishStreaming(e.status === 'completed' ? e.answer : undefined);
  activity.hide();
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
  statusPill.dataset['state'] = e.status;
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

const PHASES: Readonly<Record<Extract<Incoming, { type: 'status' }>['phase'], string>> = {
  model_call: 'thinking',
  tools: 'running tools',
  finished: 'finishing',
};

function clear(): void {
  log.replaceChildren();
  calls.clear();
  asked.clear();
  streaming = undefined;
  activity.hide();
  sessionLabel.textContent = '';
  tokens.textContent = '';
  statusPill.textContent = 'ready';
  delete statusPill.dataset['state'];
}

function handle(message: Incoming): void {
  switch (message.type) {
    case 'control':
      tab = message.tab;
      setTab(message.tab);
      skew = message.now - Date.now();
      control = message.control;
      if (message.key !== undefined) sessionStorage.setItem(CONTROL_KEY, message.key);
      else if (!message.control) sessionStorage.removeItem(CONTROL_KEY);
      agentName.textContent = message.agent;
      document.title = message.agent === '' ? 'fisk web' : `${message.agent} · fisk web`;
      if (statusPill.textContent === 'connecting' || statusPill.textContent === 'disconnected')
        statusPill.textContent = message.busy ? 'running' : 'ready';
      busy = message.busy;
      refreshControls();
      if (!control) questions.withdraw(undefined);
      return;
    case 'reset':
      clear();
      return;
    case 'prompt': {
      const prompt = add(el('div', 'user'));
      prompt.textContent = message.text;
      return;
    }
    case 'run':
      if (message.runId !== undefined) sessionLabel.textContent = `session ${message.runId}`;
      statusPill.textContent = message.resumed ? 'resuming' : 'starting';
      activity.show('starting', onPageClock(message.at));
      return;
    case 'text_fragment':
      fragment(message.text);
      return;
    case 'text': {
      const target = finishStreaming(message.text);
      target.classList.toggle('final', message.final);
      return;
    }
    case 'thinking': {
      const details = el('details', 'thinking');
      details.append(el('summary', undefined, 'Thinking'), el('pre', undefined, message.text));
      // the reasoning arrives after the answer it led to has streamed: shown before that answer
      if (streaming !== undefined) streaming.el.before(details);
      else add(details);
      return;
    }
    case 'tool_call':
      if (streaming !== undefined) finishStreaming(undefined);
      toolCall(message);
      return;
    case 'tool_result':
      toolResult(message);
      return;
    case 'warning':
      note(`warning: ${message.text}`, 'warning');
      return;
    case 'progress':
      note(message.text, 'note');
      return;
    case 'status':
      // iterations count from 1 wherever a person reads them, as on the terminal
      statusPill.textContent = `${PHASES[message.phase]} · step ${message.iteration + 1}`;
      statusPill.dataset['state'] = message.phase;
      tokens.textContent = `${message.usage.input_tokens} in / ${message.usage.output_tokens} out tokens`;
      if (message.phase === 'model_call') activity.show('thinking', onPageClock(message.at));
      else if (message.phase === 'tools') activity.show('tools', onPageClock(message.at));
      return;
    case 'question':
      question(message, message.at);
      return;
    case 'answered':
      answered(message);
      return;
    case 'approval':
      approval(message);
      return;
    case 'decision':
      replayedDecision(message);
      return;
    case 'outcome':
      outcome(message);
      return;
    case 'reopened':
      reopened(message);
      return;
    case 'crash':
      note(`The run crashed: ${message.message}`, 'error');
      return;
    case 'error':
      note(message.message, 'error');
      return;
  }
}

log.addEventListener('click', (ev) => {
  const a = (ev.target as HTMLElement).closest('a.citation');
  if (a instanceof HTMLAnchorElement && a.dataset['ref'] !== undefined) {
    ev.preventDefault();
    void openCitation(a.dataset['ref']);
  }
});
sessionsButton.addEventListener('click', () => void openSessions(() => control && !busy));
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
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    ($('prompt-form') as HTMLFormElement).requestSubmit();
  }
});
// Escape closes what is open: the dialog handles its own, the side panel closes here
document.addEventListener('keydown', (ev) => {
  if (ev.key !== 'Escape' || questions.open() || !sideOpen()) return;
  ev.preventDefault();
  closeSide();
  promptBox.focus();
});

/** The page lost its server: says whether the address is no longer valid or the server is just away. */
async function lost(): Promise<void> {
  let status: number;
  try {
    status = (await fetch('/api/sessions', { cache: 'no-store' })).status;
  } catch {
    // the server is away: try again shortly
    status = 0;
  }
  if (status === 401) {
    statusPill.textContent = 'address expired';
    note(
      'This page no longer opens the agent: fisk web was restarted, and each start makes a new address. Open the address it printed when it started (it ends in ?token=…).',
      'error expired',
    );
    return;
  }
  setTimeout(connect, 1500);
}

function connect(): void {
  const key = sessionStorage.getItem(CONTROL_KEY);
  const source = new EventSource(key === null ? '/api/events' : `/api/events?claim=${encodeURIComponent(key)}`);
  let fresh = true;
  source.onmessage = (m: MessageEvent<string>) => {
    // a new connection replays the conversation from the start
    if (fresh) clear();
    fresh = false;
    handle(JSON.parse(m.data) as Incoming);
  };
  source.onerror = () => {
    source.close();
    statusPill.textContent = 'disconnected';
    control = false;
    tab = '';
    questions.withdraw(undefined);
    refreshControls();
    void lost();
  };
}

connect();
refreshControls();
