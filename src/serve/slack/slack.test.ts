import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import { HeldTool } from '../../agenttest/held-tool.js';
import type { FakeModelServer, ReceivedRequest } from '../../agenttest/fake-model-server.js';
import { startFakeSlack } from '../../agenttest/fake-slack.js';
import type { FakeSlack, FakeSlackMessage } from '../../agenttest/fake-slack.js';
import { parseConfigForMode } from '../../config/index.js';
import { openRuntime } from '../../host/index.js';
import type { Runtime } from '../../host/index.js';
import { loadRun } from '../../runstate/index.js';
import { startServer } from '../server.js';
import type { Server } from '../server.js';
import { openSlackChannel } from './channel.js';
import type { SlackChannel } from './channel.js';
import { ACTIONS } from './questions.js';
import { slackApiBase, slackTokens, threadSessionId } from './settings.js';

const CHANNEL = 'C0FISK';

/** The text of the conversation's user messages, as the model received them. */
function userTexts(req: ReceivedRequest): string[] {
  const body = req.body as { messages: { role: string; content: string | { type: string; text?: string }[] }[] };
  return body.messages
    .filter((m) => m.role === 'user')
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.filter((b) => b.type === 'text').map((b) => b.text ?? '')));
}

/** Calls `deploy` or `hold` when asked to, answers once a result is in, and otherwise echoes. */
function model(req: ReceivedRequest) {
  const body = req.body as { messages: { content: unknown }[] };
  const last = body.messages[body.messages.length - 1];
  const answered = Array.isArray(last?.content) && (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
  if (answered) return anthropicText('**Done**, the tool answered.');
  const said = userTexts(req);
  const latest = said[said.length - 1] ?? '';
  if (latest.includes('colour'))
    return anthropicToolUse([
      { id: `call_pick_${body.messages.length}`, name: 'ask_human_select', input: { question: 'Which colour?', options: ['red', 'blue'] } },
    ]);
  if (latest.includes('name'))
    return anthropicToolUse([{ id: `call_name_${body.messages.length}`, name: 'ask_human_input', input: { question: 'Your name?' } }]);
  for (const tool of ['deploy', 'hold']) {
    if (latest.includes(tool)) return anthropicToolUse([{ id: `call_${tool}_${body.messages.length}`, name: tool, input: {} }]);
  }
  return anthropicText(`You said _${latest}_ (message ${said.length} of this thread).`);
}

let fakeModel: FakeModelServer;
let slack: FakeSlack;
let dir: string;
const open: { runtime?: Runtime; server?: Server; channel?: SlackChannel }[] = [];
let deploy: HeldTool;
let hold: HeldTool;

beforeAll(async () => {
  fakeModel = await startFakeModelServer({ fallback: model });
});
afterAll(async () => {
  await fakeModel.close();
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-slack-'));
  slack = await startFakeSlack();
  deploy = new HeldTool({ name: 'deploy', gated: true, hold: false });
  hold = new HeldTool({ name: 'hold' });
});
afterEach(async () => {
  hold.release();
  for (const w of open.splice(0)) {
    await w.server?.drain();
    await w.runtime?.close();
  }
  await slack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts one worker: a runtime, the Slack channel and a server, like `fisk serve` does. */
async function worker(
  opts: { workers?: number; windowMs?: number; approvers?: string } = {},
): Promise<{ runtime: Runtime; server: Server; channel: SlackChannel }> {
  // the Web API base and the approvers come from agent.yaml, as fisk serve reads them
  const config = parseConfigForMode(
    {
      text:
        `identity: served\nsystem_prompt: You test.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n  human_in_the_loop: {enabled: true}\n  sessions: {backend: file, options: {directory: ${JSON.stringify(join(dir, 'runs'))}}}\n` +
        `expose:\n  agent:\n    slack:\n      channels: [${CHANNEL}]\n      api_url: ${slack.apiUrl}\n${opts.approvers === undefined ? '' : `      approvers: ${opts.approvers}\n`}`,
    },
    'run',
  );
  const settings = config.expose.slack!;
  const runtime = await openRuntime(config, 'run', {
    env: { PATH: process.env['PATH'] },
    providerOptions: { baseUrl: fakeModel.url, apiKey: 'k' },
    sessions: {},
    customTools: [deploy.tool(), hold.tool()],
  });
  const channel = await openSlackChannel({
    channels: [CHANNEL],
    workers: opts.workers ?? 2,
    sessions: runtime.sessions,
    tokens: slackTokens({ SLACK_APP_TOKEN: slack.appToken, SLACK_BOT_TOKEN: slack.botToken }),
    ...(settings.apiUrl === undefined ? {} : { apiUrl: settings.apiUrl }),
    approvers: settings.approvers,
    ...(opts.windowMs === undefined ? {} : { questionWindowMs: opts.windowMs }),
  });
  const server = startServer(runtime, { channels: [channel] });
  const started = { runtime, server, channel };
  open.push(started);
  return started;
}

/** Stops a worker the way a restart does: drain, then close the runtime. */
async function stop(w: { runtime: Runtime; server: Server }): Promise<void> {
  expect(await w.server.drain()).toBeUndefined();
  await w.runtime.close();
  open.splice(
    open.findIndex((x) => x.server === w.server),
    1,
  );
}

const botSaid = (thread: string): FakeSlackMessage[] => slack.thread(CHANNEL, thread).filter((m) => m.user === slack.botUserId);
const answerIn = (thread: string, includes: string) => () => botSaid(thread).find((m) => m.text.includes(includes));
const statusOf = (thread: string): FakeSlackMessage | undefined => botSaid(thread)[0];
const button = (thread: string, actionId: string) => () => {
  const m = botSaid(thread).find((x) => JSON.stringify(x.blocks).includes(actionId));
  if (m === undefined) return undefined;
  const actions = m.blocks.find((b) => b['type'] === 'actions') as { elements: { action_id: string; value: string }[] };
  const el = actions.elements.find((e) => e.action_id === actionId);
  return el === undefined ? undefined : { message: m, value: el.value };
};

describe('the Slack channel', () => {
  it('answers a mention in its thread, in mrkdwn, under a session derived from the thread', async () => {
    await worker();
    await slack.connected();
    await slack.mention({ channel: 'C0OTHER', text: 'not here' });
    const ts = await slack.mention({ channel: CHANNEL, text: 'hello there' });
    const answer = await slack.until(answerIn(ts, 'You said'), 'the answer');
    // markdown italics become Slack's, and the answer is a reply in the mention's thread
    expect(answer.text).toBe('You said _hello there_ (message 1 of this thread).');
    expect(answer.threadTs).toBe(ts);
    await slack.until(() => (statusOf(ts)?.text.includes('Answered') === true ? true : undefined), 'the status edited to answered');
    expect(statusOf(ts)?.edits).toBeGreaterThanOrEqual(1);
    // nothing was said in a channel that is not configured
    expect(slack.messages.filter((m) => m.channel === 'C0OTHER' && m.user === slack.botUserId)).toHaveLength(0);
    const [w] = open;
    const run = await loadRun(w!.runtime!.sessions!, threadSessionId(slack.team, CHANNEL, ts));
    expect(run.status).toBe('completed');
  });

  it('continues the thread after the worker restarted, asking the store rather than remembering', async () => {
    const first = await worker();
    await slack.connected(1);
    const ts = await slack.mention({ channel: CHANNEL, text: 'remember the word heron' });
    await slack.until(answerIn(ts, 'message 1 of this thread'), 'the first answer');
    await stop(first);
    await slack.until(() => (slack.connections === 0 ? true : undefined), 'the socket closed');

    await worker();
    await slack.connected(2);
    // a reply in the thread without a mention: only a conversation the store holds is continued
    await slack.say({ channel: CHANNEL, threadTs: ts, text: 'which word was it?' });
    const second = await slack.until(answerIn(ts, 'message 2 of this thread'), 'the follow-up answer');
    expect(second.text).toContain('which word was it?');
    const last = fakeModel.requests[fakeModel.requests.length - 1]!;
    expect(userTexts(last)).toEqual(['remember the word heron', 'which word was it?']);
    // a reply in a thread the agent was never part of is left alone
    const other = await slack.say({ channel: CHANNEL, text: 'people talking' });
    await slack.say({ channel: CHANNEL, threadTs: other, text: 'among themselves' });
    const count = fakeModel.requests.length;
    await slack.mention({ channel: CHANNEL, threadTs: ts, text: 'and now?' });
    await slack.until(answerIn(ts, 'message 3 of this thread'), 'the third answer');
    expect(fakeModel.requests.length).toBe(count + 1);
    expect(botSaid(other)).toHaveLength(0);
  });

  it('asks for approval with buttons and runs the call once it is clicked', async () => {
    await worker();
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UBOSS' });
    const allow = await slack.until(button(ts, ACTIONS.once), 'the approval buttons');
    expect(allow.message.blocks.map((b) => b['type'])).toEqual(['section', 'actions']);
    expect(deploy.calls).toBe(0);
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UBOSS' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer after the approval');
    expect(deploy.calls).toBe(1);
    expect(allow.message.text).toContain('Allowed once by <@UBOSS>');
    expect(allow.message.blocks).toEqual([]);
  });

  it('turns an approval clicked after a restart into a resume turn that runs the call', async () => {
    const first = await worker({ windowMs: 200 });
    await slack.connected(1);
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UBOSS' });
    const allow = await slack.until(button(ts, ACTIONS.once), 'the approval buttons');
    // nobody clicks: the run stops before the gated call and says how to carry on
    await slack.until(
      () => (statusOf(ts)?.text.includes('Stopped before a call that needs approval') === true ? true : undefined),
      'the stopped status',
    );
    await stop(first);
    expect(deploy.calls).toBe(0);

    await worker();
    await slack.connected(2);
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UBOSS' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer of the resumed run');
    expect(deploy.calls).toBe(1);
    expect(allow.message.text).toContain('Allowed by <@UBOSS>');
    // a click forged for another thread's session is ignored
    const other = await slack.mention({ channel: CHANNEL, text: 'hi' });
    await slack.until(answerIn(other, 'You said'), 'the other answer');
    const before = fakeModel.requests.length;
    await slack.act({ message: { ...allow.message, threadTs: other }, actionId: ACTIONS.once, value: allow.value });
    await slack.mention({ channel: CHANNEL, threadTs: other, text: 'still there' });
    await slack.until(answerIn(other, 'message 2'), 'a later answer');
    expect(fakeModel.requests.length).toBe(before + 1);
    expect(deploy.calls).toBe(1);
  });

  it('holds a decline clicked after a restart: the resumed run refuses the call without asking again', async () => {
    const first = await worker({ windowMs: 200 });
    await slack.connected(1);
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UBOSS' });
    const decline = await slack.until(button(ts, ACTIONS.decline), 'the approval buttons');
    await slack.until(
      () => (statusOf(ts)?.text.includes('Stopped before a call that needs approval') === true ? true : undefined),
      'the stopped status',
    );
    await stop(first);

    await worker({ windowMs: 200 });
    await slack.connected(2);
    await slack.act({ message: decline.message, actionId: ACTIONS.decline, value: decline.value, user: 'UBOSS' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer of the resumed run');
    expect(deploy.calls).toBe(0);
    expect(decline.message.text).toContain('Declined by <@UBOSS>');
    // the decision already made answered the gate: the clicked message lost its buttons and no
    // second set was posted
    expect(botSaid(ts).filter((m) => JSON.stringify(m.blocks).includes(ACTIONS.decline))).toHaveLength(0);
    const last = fakeModel.requests.at(-1)?.bodyText ?? '';
    expect(last).toContain('the operator declined this call');
  });

  it('declines with a reason typed in a modal: only the approver may submit it, the model is told, and a second submission is told it is too late', async () => {
    await worker();
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UBOSS' });
    const reason = await slack.until(button(ts, ACTIONS.reason), 'the decline-with-reason button');
    // a stranger's press opens nothing and is told why, to them alone
    await slack.act({ message: reason.message, actionId: ACTIONS.reason, value: reason.value, user: 'UOTHER' });
    const refusal = await slack.until(() => slack.ephemerals.find((e) => e.user === 'UOTHER'), 'the refusal to the stranger');
    expect(refusal.text).toContain('Only <@UBOSS>');
    expect(slack.views).toHaveLength(0);

    await slack.act({ message: reason.message, actionId: ACTIONS.reason, value: reason.value, user: 'UBOSS' });
    const modal = await slack.until(() => slack.views[0], 'the reason modal');
    expect(modal.user).toBe('UBOSS');
    expect(JSON.stringify(modal.view['blocks'])).toContain('plain_text_input');
    const open = slack.calls.find((c) => c.method === 'views.open');
    expect(typeof open?.params['trigger_id']).toBe('string');
    const block = (modal.view['blocks'] as { type: string; block_id?: string }[]).find((b) => b.type === 'input')!.block_id!;

    // a submission by somebody else (Slack would not show them the modal; a forged one) changes nothing
    const forged = await slack.submit({ view: modal, user: 'UOTHER', values: { [block]: 'run it anyway' } });
    expect(forged).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(forged)).toContain('Only UBOSS');
    expect(deploy.calls).toBe(0);
    expect(reason.message.edits).toBe(0);

    expect(await slack.submit({ view: modal, values: { [block]: 'use the staging cluster instead' } })).toEqual({});
    await slack.until(answerIn(ts, '*Done*'), 'the answer after the decline');
    expect(deploy.calls).toBe(0);
    const sent = fakeModel.requests.at(-1)?.bodyText ?? '';
    expect(sent).toContain('operator_reason');
    expect(sent).toContain('use the staging cluster instead');
    expect(reason.message.text).toContain('Declined by <@UBOSS>');
    expect(reason.message.text).toContain('>use the staging cluster instead');
    expect(reason.message.blocks).toEqual([]);

    // the same box submitted again: the question was answered, and the modal says so
    const again = await slack.submit({ view: modal, values: { [block]: 'second thoughts' } });
    expect(again).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(again)).toContain('already answered');
    expect(reason.message.text).not.toContain('second thoughts');
  });

  it('takes an empty reason as a plain decline', async () => {
    await worker();
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UBOSS' });
    const reason = await slack.until(button(ts, ACTIONS.reason), 'the decline-with-reason button');
    await slack.act({ message: reason.message, actionId: ACTIONS.reason, value: reason.value, user: 'UBOSS' });
    const modal = await slack.until(() => slack.views[0], 'the reason modal');
    expect(await slack.submit({ view: modal, values: {} })).toEqual({});
    await slack.until(answerIn(ts, '*Done*'), 'the answer after the decline');
    const sent = fakeModel.requests.at(-1)?.bodyText ?? '';
    expect(sent).toContain('the operator declined this call; the decision is final');
    expect(sent).not.toContain('operator_reason');
    expect(reason.message.text).toContain('Declined by <@UBOSS>');
    expect(reason.message.text).not.toContain('\n>');
  });

  it('journals a reason given after a restart, and the resumed run refuses the call with it', async () => {
    const first = await worker({ windowMs: 200 });
    await slack.connected(1);
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UBOSS' });
    const reason = await slack.until(button(ts, ACTIONS.reason), 'the decline-with-reason button');
    await slack.until(
      () => (statusOf(ts)?.text.includes('Stopped before a call that needs approval') === true ? true : undefined),
      'the stopped status',
    );
    await stop(first);

    const second = await worker();
    await slack.connected(2);
    await slack.act({ message: reason.message, actionId: ACTIONS.reason, value: reason.value, user: 'UBOSS' });
    const modal = await slack.until(() => slack.views[0], 'the reason modal');
    const block = (modal.view['blocks'] as { type: string; block_id?: string }[]).find((b) => b.type === 'input')!.block_id!;
    expect(await slack.submit({ view: modal, values: { [block]: 'ask the release manager first' } })).toEqual({});
    await slack.until(answerIn(ts, '*Done*'), 'the answer of the resumed run');
    expect(deploy.calls).toBe(0);
    const sent = fakeModel.requests.at(-1)?.bodyText ?? '';
    expect(sent).toContain('operator_reason');
    expect(sent).toContain('ask the release manager first');
    expect(reason.message.text).toContain('Declined by <@UBOSS>; carrying on.');
    const run = await loadRun(second.runtime.sessions!, threadSessionId(slack.team, CHANNEL, ts));
    expect(run.status).toBe('completed');
    // answered once: a second submission, once the conversation is idle, journals nothing
    await slack.until(() => (statusOf(ts)?.text.includes('Answered') === true ? true : undefined), 'the status edited to answered');
    const records = (await second.runtime.sessions!.load(threadSessionId(slack.team, CHANNEL, ts))).length;
    const again = await slack.submit({ view: modal, values: { [block]: 'no, deploy it' } });
    expect(JSON.stringify(again)).toContain('no longer open');
    expect((await second.runtime.sessions!.load(threadSessionId(slack.team, CHANNEL, ts))).length).toBe(records);
  });

  it('refuses, by default, an approval pressed by somebody other than the person who asked: only they are told, and it stays pending', async () => {
    await worker();
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UASKER' });
    const allow = await slack.until(button(ts, ACTIONS.once), 'the approval buttons');
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UOTHER' });
    const refusal = await slack.until(() => slack.ephemerals.find((e) => e.user === 'UOTHER'), 'the ephemeral refusal');
    expect(refusal).toMatchObject({ channel: CHANNEL, threadTs: ts });
    expect(refusal.text).toContain('Only <@UASKER>');
    expect(refusal.text).toContain('Nothing was changed');
    // nothing changed: the buttons are still there, nothing ran, and the run still waits
    expect(allow.message.blocks.length).toBeGreaterThan(0);
    expect(allow.message.edits).toBe(0);
    expect(deploy.calls).toBe(0);
    expect(statusOf(ts)?.text).toContain('Waiting for an answer to the question below');
    await slack.act({ message: allow.message, actionId: ACTIONS.decline, value: allow.value, user: 'UOTHER' });
    await slack.until(() => (slack.ephemerals.filter((e) => e.user === 'UOTHER').length === 2 ? true : undefined), 'the second refusal');
    expect(allow.message.blocks.length).toBeGreaterThan(0);
    // the person who asked can
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UASKER' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer after the approval');
    expect(deploy.calls).toBe(1);
    expect(allow.message.text).toContain('Allowed once by <@UASKER>');
    expect(slack.ephemerals.filter((e) => e.user === 'UASKER')).toHaveLength(0);
    expect(slack.calls.some((c) => c.method === 'chat.postEphemeral')).toBe(true);
  });

  it('takes approvals only from the listed user ids, the asker included', async () => {
    await worker({ approvers: '[UBOSS, UDEPUTY]' });
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UASKER' });
    const allow = await slack.until(button(ts, ACTIONS.once), 'the approval buttons');
    await slack.act({ message: allow.message, actionId: ACTIONS.always, value: allow.value, user: 'UASKER' });
    const refusal = await slack.until(() => slack.ephemerals.find((e) => e.user === 'UASKER'), 'the refusal to the asker');
    expect(refusal.text).toContain('not one of the approvers');
    expect(deploy.calls).toBe(0);
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UDEPUTY' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer after the approval');
    expect(deploy.calls).toBe(1);
    expect(allow.message.text).toContain('Allowed once by <@UDEPUTY>');
  });

  it('with approvers: channel, anybody in the channel may approve', async () => {
    await worker({ approvers: 'channel' });
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UASKER' });
    const allow = await slack.until(button(ts, ACTIONS.once), 'the approval buttons');
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'USOMEONE' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer after the approval');
    expect(deploy.calls).toBe(1);
    expect(slack.ephemerals).toHaveLength(0);
  });

  it('holds the requester rule after a restart: a stranger’s late press is refused and journals nothing', async () => {
    const first = await worker({ windowMs: 200 });
    await slack.connected(1);
    const ts = await slack.mention({ channel: CHANNEL, text: 'please deploy', user: 'UASKER' });
    const allow = await slack.until(button(ts, ACTIONS.once), 'the approval buttons');
    await slack.until(
      () => (statusOf(ts)?.text.includes('Stopped before a call that needs approval') === true ? true : undefined),
      'the stopped status',
    );
    await stop(first);

    const second = await worker();
    await slack.connected(2);
    const session = threadSessionId(slack.team, CHANNEL, ts);
    const before = (await second.runtime.sessions!.load(session)).length;
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UOTHER' });
    await slack.until(() => slack.ephemerals.find((e) => e.user === 'UOTHER'), 'the ephemeral refusal');
    expect((await second.runtime.sessions!.load(session)).length).toBe(before);
    expect(deploy.calls).toBe(0);
    await slack.act({ message: allow.message, actionId: ACTIONS.once, value: allow.value, user: 'UASKER' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer of the resumed run');
    expect(deploy.calls).toBe(1);
  });

  it('refuses an api_url that would send the token over plain http, and approvers that name nobody, naming the key', () => {
    const parse = (slackBlock: string) => () =>
      parseConfigForMode(
        { text: `identity: served\nllm: {model: claude-sonnet-4-6}\nexpose:\n  agent:\n    slack:\n      channels: [C1]\n${slackBlock}` },
        'serve',
      );
    expect(parse('      api_url: http://slack.example.com/api/\n')).toThrow(
      /expose\.agent\.slack\.api_url.*uses http to a host that is not this machine/,
    );
    expect(parse('      api_url: not a url\n')).toThrow(/expose\.agent\.slack\.api_url.*is not a URL/);
    expect(parse('      approvers: everyone\n')).toThrow(
      /expose\.agent\.slack\.approvers.*use requester .*channel .*or a list of Slack user ids/,
    );
    expect(parse('      approvers: []\n')).toThrow(/expose\.agent\.slack\.approvers.*empty list/);
    expect(parse('      approvers: [alice]\n')).toThrow(/"alice" is not a Slack user id/);
    expect(parse('      approvers: UBOSS\n')).toThrow(/write a list \(\[UBOSS\]\)/);
    // the base gains the slash the client appends method names to
    const ok = parseConfigForMode(
      {
        text: `identity: served\nllm: {model: claude-sonnet-4-6}\nexpose:\n  agent:\n    slack:\n      channels: [C1]\n      api_url: https://slack-gov.example.com/api\n`,
      },
      'serve',
    );
    expect(ok.expose.slack).toMatchObject({ apiUrl: 'https://slack-gov.example.com/api/', approvers: { kind: 'requester' } });
    expect(slackApiBase({ SLACK_API_URL: 'http://127.0.0.1:9/api/' }, ok.expose.slack!.apiUrl)).toBe('http://127.0.0.1:9/api/');
    expect(slackApiBase({}, ok.expose.slack!.apiUrl)).toBe('https://slack-gov.example.com/api/');
    expect(() => slackApiBase({ SLACK_API_URL: 'http://proxy.example.com/' }, undefined)).toThrow(/SLACK_API_URL/);
  });

  it('takes a typed answer to a question while the run waits', async () => {
    await worker();
    await slack.connected();
    const ts = await slack.mention({ channel: CHANNEL, text: 'ask my name' });
    const q = await slack.until(() => botSaid(ts).find((m) => JSON.stringify(m.blocks).includes(ACTIONS.input)), 'the input question');
    await slack.act({ message: q, actionId: ACTIONS.input, typed: 'Ada' });
    await slack.until(answerIn(ts, '*Done*'), 'the answer');
    const results = JSON.stringify((fakeModel.requests[fakeModel.requests.length - 1]!.body as { messages: unknown[] }).messages);
    expect(results).toContain('{\\"value\\":\\"Ada\\"}');
    expect(q.text).toContain('<@UPERSON> answered');
  });

  it('defers a question nobody answered, and a choice made after a restart resumes the run with it', async () => {
    const first = await worker({ windowMs: 200 });
    await slack.connected(1);
    const ts = await slack.mention({ channel: CHANNEL, text: 'pick a colour' });
    const q = await slack.until(() => botSaid(ts).find((m) => JSON.stringify(m.blocks).includes(ACTIONS.select)), 'the menu');
    await slack.until(
      () => (statusOf(ts)?.text.includes('Waiting for an answer to the question above') === true ? true : undefined),
      'the deferred status',
    );
    const run = await loadRun(first.runtime.sessions!, threadSessionId(slack.team, CHANNEL, ts));
    expect(run.status).toBe('suspended');
    await stop(first);

    await worker();
    await slack.connected(2);
    const actions = q.blocks.find((b) => b['type'] === 'actions') as { elements: { options: { value: string }[] }[] };
    await slack.act({ message: q, actionId: ACTIONS.select, selectedValue: actions.elements[0]!.options[1]!.value });
    await slack.until(answerIn(ts, '*Done*'), 'the answer of the resumed run');
    const results = JSON.stringify((fakeModel.requests[fakeModel.requests.length - 1]!.body as { messages: unknown[] }).messages);
    expect(results).toContain('{\\"selected\\":\\"blue\\"}');
    expect(q.text).toContain('Chosen by <@UPERSON>');
    // the status message that said it was waiting is brought up to date by the resumed run,
    // rather than left waiting above a second status
    await slack.until(() => (statusOf(ts)?.text.includes('Answered') === true ? true : undefined), 'the first status edited to answered');
    expect(botSaid(ts).filter((m) => m.text.includes('Waiting for an answer') || m.text.includes('On it shortly'))).toHaveLength(0);
  });

  it('on drain, finishes the running turn, marks the admitted ones not started, and closes the socket last', async () => {
    const w = await worker({ workers: 1 });
    await slack.connected();
    const running = await slack.mention({ channel: CHANNEL, text: 'hold on' });
    await hold.until(1);
    const second = await slack.mention({ channel: CHANNEL, text: 'second' });
    const third = await slack.mention({ channel: CHANNEL, text: 'third' });
    await slack.until(() => (statusOf(third) !== undefined ? true : undefined), 'the third status');
    const drained = w.server.drain();
    // the drain has marked the admitted turns, a step it takes after it began: the running turn
    // still holds the socket open
    await slack.until(
      () => (statusOf(third)?.text.includes('Not started') === true ? true : undefined),
      'the third status marked not started',
    );
    await slack.until(
      () => (statusOf(second)?.text.includes('Not started') === true ? true : undefined),
      'the second status marked not started',
    );
    expect(slack.connections).toBe(1);
    hold.release();
    expect(await drained).toBeUndefined();
    expect(answerIn(running, '*Done*')()).toBeDefined();
    for (const t of [second, third]) expect(statusOf(t)?.text).toContain('Not started');
    await slack.until(() => (slack.connections === 0 ? true : undefined), 'the socket closed');
  });

  it('refuses missing or swapped tokens by variable name', () => {
    expect(() => slackTokens({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(/SLACK_APP_TOKEN/);
    expect(() => slackTokens({ SLACK_APP_TOKEN: 'xapp-1', SLACK_BOT_TOKEN: ' ' })).toThrow(/SLACK_BOT_TOKEN/);
    expect(() => slackTokens({ SLACK_APP_TOKEN: 'xoxb-1', SLACK_BOT_TOKEN: 'xapp-1' })).toThrow(/SLACK_APP_TOKEN does not hold/);
  });
});
