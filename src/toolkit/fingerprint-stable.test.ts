import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toolsHash } from '../runstate/fingerprint.js';
import { loadApplicationTools } from './load.js';
import { selectTools } from './selection.js';

const app = fileURLToPath(new URL('../../test/fixtures/fisk-app.mjs', import.meta.url));
const none = { tools: [], tags: [] };

async function definitionsHash(globalFlags: string[], providerToolSearch: boolean): Promise<string> {
  const loaded = await loadApplicationTools({
    applicationPath: app,
    globalFlags,
    confirmTags: [],
    include: none,
    exclude: none,
    credentialEnvNames: [],
    env: { PATH: process.env['PATH'], FIXTURE_MODE: '' },
  });
  const selection = selectTools({
    sources: [loaded.source],
    confirmTags: [],
    deferral: { noToolSearch: false, providerToolSearch, harnessToolSearch: true },
  });
  return toolsHash(selection.toolSet.definitions());
}

// The resume fingerprint compares these hashes with those journaled by earlier builds: a run
// started before a change to how command tools are built must still resume after it.
describe('the tool definitions of an application, as the resume fingerprint hashes them', () => {
  it('hash the same as they always have, deferred or not, with globals merged in', async () => {
    const hashes = [
      await definitionsHash([], true),
      await definitionsHash(['context', 'trace'], true),
      await definitionsHash(['context'], false),
    ];
    expect(hashes).toEqual([
      'bb23f267463468b44aa31a001518a8d69c1602114784de8f8e13b8db056a03a0',
      '46fec6f8d5e5e4ca13f892cf2140b15bbde775c6fb6655e6e0a46509fed4714c',
      'fa3cea2010272f1767c7c409939e01d0cc80c5213846728fe0f58883fb8e21f9',
    ]);
  });
});
