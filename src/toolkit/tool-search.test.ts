import { describe, expect, it } from 'vitest';
import { generatedApplication } from '../agenttest/generated-app.js';
import type { Message } from '../llm/types.js';
import { tokenize } from './bm25.js';
import { decideDeferral, deferralPolicy } from './deferral.js';
import type { DeferralPolicy } from './deferral.js';
import { ToolkitError } from './errors.js';
import { buildCommandTools } from './fisk/application.js';
import { readApplicationModel } from './fisk/model.js';
import { selectTools } from './selection.js';
import type { Selection } from './selection.js';
import { fakeTool } from './test-tools.js';
import {
  SearchableToolSet,
  TOOL_SEARCH_NAME,
  attachToolSearch,
  deferredNotLoaded,
  describeToolReach,
  fingerprintDefinitions,
  loadedFromHistory,
  loadedToolNames,
  notLoadedMessage,
} from './tool-search.js';
import { EMPTY_TOOL_SET, PublishedToolSetSource } from './tool-set.js';
import type { Tool, ToolSet } from './tool.js';

const harness: DeferralPolicy = deferralPolicy(false, false);
const builtin = (name: string): Tool => fakeTool(name, { kind: 'builtin', exposure: { mcp: false, a2a: false } });

/** Twelve application tools with distinct words, a pinned one and a built-in. */
function tools(ran: string[] = []): Tool[] {
  const spec = (name: string, description: string, params: Record<string, unknown> = {}, tags: string[] = []): Tool =>
    fakeTool(name, {
      description,
      inputSchema: { type: 'object', properties: params, required: [] },
      tags,
      handler: () => {
        ran.push(name);
        return Promise.resolve({ status: 'completed', output: `{"ran":${JSON.stringify(name)}}`, isError: false });
      },
    });
  return [
    spec('weather_now', 'Current weather conditions for a city', { city: { type: 'string' } }),
    spec('weather_forecast', 'Forecast of the coming days for a city', { city: { type: 'string' }, days: { type: 'integer' } }),
    spec('invoice_create', 'Issues a billing document to a customer', { customer: { type: 'string' }, amount: { type: 'number' } }),
    spec('invoice_void', 'Cancels an issued billing document', { invoice_id: { type: 'string' } }, ['ai:destructive']),
    spec('disk_usage', 'Space used on each mounted filesystem', {}, ['ai:read_only']),
    spec('process_list', 'Running programs with their memory', { sort_by: { type: 'string' } }),
    spec('mail_send', 'Sends an email message', { recipient: { type: 'string' }, subject: { type: 'string' } }),
    spec('calendar_book', 'Reserves a meeting room slot', { room: { type: 'string' } }),
    spec('translate_text', 'Translates text between languages', { target_language: { type: 'string' } }),
    spec('dns_lookup', 'Resolves a host name to addresses', { hostname: { type: 'string' } }, ['network']),
    spec('ping_host', 'Checks whether a machine answers', { hostname: { type: 'string' } }, ['network']),
    fakeTool('pinned_status', { description: 'Always there', deferrable: false }),
    builtin('ask_human'),
  ];
}

function select(policy: DeferralPolicy = harness, ran: string[] = []): Selection {
  return selectTools({ sources: [{ source: 'application', tools: tools(ran) }], confirmTags: [], deferral: policy });
}

function harnessSet(ran: string[] = []): { source: PublishedToolSetSource; set: SearchableToolSet } {
  const source = new PublishedToolSetSource(EMPTY_TOOL_SET);
  const set = attachToolSearch(select(harness, ran), source);
  if (!(set instanceof SearchableToolSet)) throw new Error('expected a searchable set');
  source.publish(set);
  return { source, set };
}

const names = (set: ToolSet): string[] => set.definitions().map((d) => d.name);
const signal = new AbortController().signal;

async function searchVia(source: PublishedToolSetSource, input: unknown): Promise<{ output: string; isError: boolean }> {
  const tool = source.current().get(TOOL_SEARCH_NAME);
  if (tool === undefined) throw new Error('no search tool');
  const out = await tool.execute(JSON.stringify(input), {}, signal);
  if (out.status !== 'completed') throw new Error('search deferred');
  return { output: out.output, isError: out.isError };
}

describe('tokenize', () => {
  it('splits snake_case and camelCase, lower-cases, drops stop words and one-letter words, and reduces plurals', () => {
    expect(tokenize('listStreams of the key_value Entries, boxes & x')).toEqual(['list', 'stream', 'key', 'value', 'entry', 'box']);
    expect(tokenize('status address class')).toEqual(['status', 'address', 'class']);
    expect(tokenize('Übersetzt Wörter, café-Menü')).toEqual(['übersetzt', 'wörter', 'café', 'menü']);
  });
});

describe('deferral with harness-side search', () => {
  it('uses the provider search where there is one, the harness search otherwise, and neither with llm.no_tool_search', () => {
    const t = tools();
    expect(decideDeferral(t, deferralPolicy(true, false)).via).toBe('provider');
    expect(decideDeferral(t, deferralPolicy(false, false)).via).toBe('harness');
    const off = decideDeferral(t, deferralPolicy(false, true));
    expect([off.via, off.sentAllInstead, off.deferred.size]).toEqual(['none', true, 0]);
    const offProvider = decideDeferral(t, deferralPolicy(true, true));
    expect([offProvider.via, offProvider.deferred.size]).toEqual(['none', 0]);
    // without the harness search attached, nothing is deferred and the operator is warned
    const absent = select({ noToolSearch: false, providerToolSearch: false });
    expect(absent.deferral.via).toBe('none');
    expect(absent.warnings.map((w) => w.code)).toEqual(['tool_search_unavailable']);
    expect(select().warnings).toEqual([]);
  });

  it('never defers built-ins or tools that may not be deferred', () => {
    const d = select().deferral;
    expect(d.deferred.has('ask_human')).toBe(false);
    expect(d.deferred.has('pinned_status')).toBe(false);
    expect(d.deferred.size).toBe(11);
  });
});

describe('attachToolSearch', () => {
  it('returns the selected set unchanged unless the harness answers searches', () => {
    const provider = select(deferralPolicy(true, false));
    expect(attachToolSearch(provider, new PublishedToolSetSource(EMPTY_TOOL_SET))).toBe(provider.toolSet);
    const off = select(deferralPolicy(false, true));
    expect(attachToolSearch(off, new PublishedToolSetSource(EMPTY_TOOL_SET))).toBe(off.toolSet);
  });

  it('sends the always-loaded tools and the search tool only, with nothing marked deferred', () => {
    const { set } = harnessSet();
    expect(names(set)).toEqual(['pinned_status', 'ask_human', TOOL_SEARCH_NAME]);
    expect(set.definitions().every((d) => !d.deferLoading)).toBe(true);
    expect(set.get(TOOL_SEARCH_NAME)?.kind).toBe('builtin');
    expect(set.full.entries).toHaveLength(13);
  });

  it('refuses a selected tool that already holds the search tool name', () => {
    const taken = selectTools({
      sources: [{ source: 'custom', tools: [...tools(), fakeTool(TOOL_SEARCH_NAME)] }],
      confirmTags: [],
      deferral: harness,
    });
    expect(() => attachToolSearch(taken, new PublishedToolSetSource(EMPTY_TOOL_SET))).toThrow(ToolkitError);
    expect(() => attachToolSearch(taken, new PublishedToolSetSource(EMPTY_TOOL_SET))).toThrow(/rename that tool/);
  });
});

describe('the search tool', () => {
  it('ranks an exact name first, then by words in names, descriptions, parameter names and tags', () => {
    const { set } = harnessSet();
    expect(set.search('dns_lookup')).toEqual(['dns_lookup']);
    expect(set.search('mail_send, ping_host')).toEqual(['mail_send', 'ping_host']);
    expect(set.search('DNS_LOOKUP', 1)).toEqual(['dns_lookup']);
    expect(set.search('weather', 2).sort()).toEqual(['weather_forecast', 'weather_now']);
    expect(set.search('billing document', 2).sort()).toEqual(['invoice_create', 'invoice_void']);
    expect(set.search('recipient', 1)).toEqual(['mail_send']);
    expect(set.search('network', 2).sort()).toEqual(['dns_lookup', 'ping_host']);
    expect(set.search('city forecast days', 1)).toEqual(['weather_forecast']);
    // names written exactly come first, in the order given, whatever BM25 thinks
    expect(set.search('ping_host mail_send weather', 3)).toEqual(['ping_host', 'mail_send', 'weather_now']);
    expect(set.search('quantum entanglement')).toEqual([]);
    // an always-loaded tool is not a search result: it is already there
    expect(set.search('pinned_status')).not.toContain('pinned_status');
  });

  it('publishes a new set carrying the matching definitions; the old set is unchanged and loads accumulate', async () => {
    const { source, set } = harnessSet();
    const r = await searchVia(source, { query: 'weather for a city', limit: 2 });
    expect(r.isError).toBe(false);
    const body = JSON.parse(r.output) as { loaded: string[]; tools: { name: string; description: string }[] };
    expect(body.loaded.sort()).toEqual(['weather_forecast', 'weather_now']);
    expect(body.tools.map((t) => t.description)).toContain('Current weather conditions for a city');
    const after = source.current();
    expect(after).not.toBe(set);
    expect(names(set)).toEqual(['pinned_status', 'ask_human', TOOL_SEARCH_NAME]);
    expect(names(after).slice(0, 3)).toEqual(['pinned_status', 'ask_human', TOOL_SEARCH_NAME]);
    expect(names(after).slice(3).sort()).toEqual(['weather_forecast', 'weather_now']);
    const forecast = after.definitions().find((d) => d.name === 'weather_forecast');
    expect(forecast?.inputSchema).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: [],
    });

    await searchVia(source, { query: 'mail_send' });
    expect(names(source.current()).slice(3)).toEqual([...names(after).slice(3), 'mail_send']);
    expect(loadedToolNames(source.current())).toEqual(names(source.current()).slice(3));

    // a search for what is already loaded publishes nothing new
    const before = source.current();
    await searchVia(source, { query: 'mail_send', limit: 1 });
    expect(source.current()).toBe(before);
  });

  it('answers a bad query and an empty match as data', async () => {
    const { source } = harnessSet();
    expect(await searchVia(source, { query: '  ' })).toMatchObject({ isError: true });
    const none = await searchVia(source, { query: 'quantum entanglement' });
    expect(none.isError).toBe(false);
    expect(JSON.parse(none.output)).toMatchObject({ loaded: [] });
    expect(source.current().definitions()).toHaveLength(3);
  });
});

describe('a call to a deferred tool that is not loaded', () => {
  it('is answered with the search-first message and never runs the tool, until a search loads it', async () => {
    const ran: string[] = [];
    const { source, set } = harnessSet(ran);
    expect(deferredNotLoaded(set, 'mail_send')).toBe(notLoadedMessage('mail_send'));
    expect(deferredNotLoaded(set, 'pinned_status')).toBeUndefined();
    expect(deferredNotLoaded(set, 'no_such_tool')).toBeUndefined();
    expect(set.get('no_such_tool')).toBeUndefined();

    const standIn = set.get('mail_send');
    expect(standIn?.kind).toBe('custom');
    const out = await standIn?.execute('{"recipient":"a@b"}', {}, signal);
    expect(out).toEqual({ status: 'completed', output: notLoadedMessage('mail_send'), isError: true });
    expect(notLoadedMessage('mail_send')).toContain(TOOL_SEARCH_NAME);
    expect(ran).toEqual([]);

    await searchVia(source, { query: 'mail_send' });
    const loaded = source.current();
    expect(deferredNotLoaded(loaded, 'mail_send')).toBeUndefined();
    await loaded.get('mail_send')?.execute('{}', {}, signal);
    expect(ran).toEqual(['mail_send']);
  });

  it("is none of this check's business for a set without harness search", () => {
    const provider = select(deferralPolicy(true, false)).toolSet;
    expect(deferredNotLoaded(provider, 'mail_send')).toBeUndefined();
  });
});

describe('resume and fingerprint', () => {
  function conversationWith(searchResult: string, extra: Message[] = []): Message[] {
    return [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 's1', name: TOOL_SEARCH_NAME, input: '{"query":"weather"}' },
          { type: 'tool_use', id: 'x1', name: 'pinned_status', input: '{}' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 's1', content: searchResult },
          { type: 'tool_result', toolUseId: 'x1', content: '{"loaded":["invoice_void"]}' },
        ],
      },
      ...extra,
    ];
  }

  it('derives the loaded names from the search tool results only', () => {
    const history = conversationWith('{"loaded":["weather_now","weather_forecast"],"tools":[]}', [
      { role: 'assistant', content: [{ type: 'tool_use', id: 's2', name: TOOL_SEARCH_NAME, input: '{"query":"x"}' }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 's2', content: '{"loaded":["mail_send"]}', isError: true }] },
    ]);
    expect(loadedFromHistory(history)).toEqual(['weather_now', 'weather_forecast']);
    expect(loadedFromHistory(conversationWith('not json'))).toEqual([]);
    expect(loadedFromHistory(conversationWith('{"loaded":"weather_now"}'))).toEqual([]);
    expect(loadedFromHistory(conversationWith('{"loaded":["ok_name","bad name",7]}'))).toEqual(['ok_name']);
  });

  it('reads a resumed batch too', () => {
    const pending = {
      message: { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 's9', name: TOOL_SEARCH_NAME, input: '{}' }] },
      results: new Map([['s9', { type: 'tool_result' as const, toolUseId: 's9', content: '{"loaded":["dns_lookup"]}' }]]),
    };
    expect(loadedFromHistory(conversationWith('{"loaded":["weather_now"]}'), pending)).toEqual(['weather_now', 'dns_lookup']);
  });

  it('restores the loaded set on attach, dropping names the set no longer defers', () => {
    const source = new PublishedToolSetSource(EMPTY_TOOL_SET);
    const set = attachToolSearch(select(), source, { loaded: ['weather_now', 'gone_tool', 'pinned_status', 'weather_now'] });
    expect(names(set)).toEqual(['pinned_status', 'ask_human', TOOL_SEARCH_NAME, 'weather_now']);
  });

  it('fingerprints the full set, whatever has been loaded', async () => {
    const { source, set } = harnessSet();
    const before = fingerprintDefinitions(set);
    expect(before.map((d) => d.name)).toContain('mail_send');
    expect(before.filter((d) => d.deferLoading)).toHaveLength(11);
    await searchVia(source, { query: 'mail_send' });
    expect(fingerprintDefinitions(source.current())).toEqual(before);
    expect(source.current().definitions()).not.toEqual(set.definitions());
    const plain = select(deferralPolicy(true, false)).toolSet;
    expect(fingerprintDefinitions(plain)).toBe(plain.definitions());
  });
});

describe('describeToolReach', () => {
  it('says for every provider which tools are deferred and how the model reaches them', () => {
    const reach = (providerSearch: boolean, off: boolean, policy?: DeferralPolicy) => {
      const p = policy ?? deferralPolicy(providerSearch, off);
      const s = select(p);
      return describeToolReach(p, s.deferral, s.toolSet.entries);
    };
    const provider = reach(true, false);
    expect(provider.mode).toBe('provider_search');
    expect(provider.deferred).toHaveLength(11);
    expect(provider.summary).toContain("provider's server-side tool search");
    const own = reach(false, false);
    expect(own.mode).toBe('harness_search');
    expect(own.summary).toContain(TOOL_SEARCH_NAME);
    expect(reach(true, true).mode).toBe('search_off');
    expect(reach(true, true).summary).toContain('llm.no_tool_search');
    expect(reach(false, false, { noToolSearch: false, providerToolSearch: false }).mode).toBe('no_search');
    const few = selectTools({ sources: [{ source: 'application', tools: tools().slice(0, 3) }], confirmTags: [], deferral: harness });
    expect(describeToolReach(harness, few.deferral, few.toolSet.entries)).toMatchObject({ mode: 'all_sent', deferred: [] });
    const pinned = selectTools({
      sources: [
        { source: 'application', tools: [fakeTool('pinned', { deferrable: false })] },
        { source: 'memory', tools: Array.from({ length: 11 }, (_, i) => builtin(`memory_${i}`)) },
      ],
      confirmTags: [],
      deferral: harness,
    });
    const allPinned = describeToolReach(harness, pinned.deferral, pinned.toolSet.entries);
    expect(allPinned.mode).toBe('all_sent');
    expect(allPinned.summary).toContain('no tool may be deferred');
    expect(attachToolSearch(pinned, new PublishedToolSetSource(EMPTY_TOOL_SET))).toBe(pinned.toolSet);
  });
});

describe('recall over a 300-command application', () => {
  it('finds every command in the top 5 from a query built from its description', () => {
    const app = generatedApplication();
    const decoded = readApplicationModel(app.model);
    const built = buildCommandTools(decoded, { binary: '/bin/true', globals: [], confirmTags: [], credentialEnvNames: [] });
    expect(built.tools).toHaveLength(300);
    const selection = selectTools({ sources: [{ source: 'application', tools: built.tools }], confirmTags: [], deferral: harness });
    const set = attachToolSearch(selection, new PublishedToolSetSource(EMPTY_TOOL_SET));
    if (!(set instanceof SearchableToolSet)) throw new Error('expected a searchable set');
    expect(set.deferred.size).toBe(300);

    const recallOf = (queryOf: (description: string) => string): { at1: number; at5: number; misses: string[] } => {
      let at1 = 0;
      let at5 = 0;
      const misses: string[] = [];
      for (const cmd of app.commands) {
        const query = queryOf(cmd.description);
        expect(query).not.toContain(cmd.name);
        const hits = set.search(query, 5);
        if (hits[0] === cmd.name) at1++;
        if (hits.includes(cmd.name)) at5++;
        else misses.push(`${cmd.name} <- ${query}: ${hits.join(', ')}`);
      }
      return { at1: at1 / app.commands.length, at5: at5 / app.commands.length, misses };
    };
    // what a model would type: the description's words, lower-cased, never the tool's name
    const recall = recallOf((d) => d.toLowerCase().replace(/[^a-z0-9 -]/g, ''));
    // harder: every third word left out
    const partial = recallOf((d) =>
      d
        .toLowerCase()
        .split(' ')
        .filter((_, i) => i % 3 !== 2)
        .join(' '),
    );
    console.log(
      `tool search recall over ${app.commands.length} commands: full description @1 ${recall.at1.toFixed(3)} @5 ${recall.at5.toFixed(3)}; ` +
        `every third word left out @1 ${partial.at1.toFixed(3)} @5 ${partial.at5.toFixed(3)}`,
    );
    expect(recall.misses).toEqual([]);
    expect(partial.at5).toBeGreaterThanOrEqual(0.95);
    expect(recall.at5).toBe(1);
  });
});
