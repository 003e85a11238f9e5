import { describe, expect, it } from 'vitest';
import type { FetchLike, FetchMiddleware } from '../../llm/http.js';
import { runtimeDepsFromFlags } from './runtime-flags.js';

const tele: FetchMiddleware = (next) => next;
const debug: FetchMiddleware = (next) => next;
const telemetry = { fetchMiddleware: tele, knowledgeDegraded: (): void => undefined };
const io = { cwd: '/work/agent', env: { HOME: '/home/a' } };

describe('runtimeDepsFromFlags', () => {
  it('passes the flag overrides, debug hooks before telemetry, and a state dir resolved against the working directory', () => {
    const fetch: FetchLike = () => Promise.reject(new Error('unused'));
    const deps = runtimeDepsFromFlags({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1', stateDir: 'state' }, io, {
      telemetry,
      debugMiddleware: [debug],
      fetch,
      journaled: true,
    });
    expect(deps.env).toBe(io.env);
    expect(deps.onKnowledgeDegraded).toBe(telemetry.knowledgeDegraded);
    expect(deps.providerOptions).toEqual({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1', fetch, fetchMiddleware: [debug, tele] });
    expect(deps.sessions).toEqual({ stateDir: '/work/agent/state' });
  });

  it('adds nothing the flags do not ask for, and opens no session store for an unjournaled run', () => {
    const deps = runtimeDepsFromFlags({}, io, { telemetry, journaled: false });
    expect(deps.providerOptions).toEqual({ fetchMiddleware: [tele] });
    expect(deps).not.toHaveProperty('sessions');
    expect(runtimeDepsFromFlags({}, io, { telemetry, journaled: true }).sessions).toEqual({});
  });

  it('gives a runtime that calls no model (fisk mcp) the environment and the knowledge hook, and no session store', () => {
    const deps = runtimeDepsFromFlags({}, io, { telemetry, journaled: false });
    expect(deps.env).toBe(io.env);
    expect(deps.onKnowledgeDegraded).toBe(telemetry.knowledgeDegraded);
    expect(deps.sessions).toBeUndefined();
  });
});
