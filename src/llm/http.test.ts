import { describe, expect, it } from 'vitest';
import { composeFetch, requestBodyText, requestMethod, requestUrl } from './http.js';
import type { FetchLike, FetchMiddleware } from './http.js';

describe('composeFetch', () => {
  it('runs the first middleware outermost and reaches the base fetch once', async () => {
    const seen: string[] = [];
    const base: FetchLike = (input) => {
      seen.push(`base ${requestUrl(input)}`);
      return Promise.resolve(new Response('ok'));
    };
    const tag =
      (name: string): FetchMiddleware =>
      (next) =>
      async (input, init) => {
        seen.push(`${name} in`);
        const res = await next(input, init);
        seen.push(`${name} out`);
        return res;
      };
    const f = composeFetch(base, [tag('a'), tag('b')]);
    expect(await (await f('http://x/y')).text()).toBe('ok');
    expect(seen).toEqual(['a in', 'b in', 'base http://x/y', 'b out', 'a out']);
  });

  it('reads method, URL and text bodies without consuming anything else', () => {
    expect(requestMethod('http://x')).toBe('GET');
    expect(requestMethod(new URL('http://x'), { method: 'post' })).toBe('POST');
    expect(requestUrl(new URL('http://x/a'))).toBe('http://x/a');
    expect(requestBodyText({ body: '{"a":1}' })).toBe('{"a":1}');
    expect(requestBodyText({ body: new TextEncoder().encode('hi') })).toBe('hi');
    expect(requestBodyText({ body: new ReadableStream() })).toBeUndefined();
  });
});
