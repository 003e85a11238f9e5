import { describe, expect, it } from 'vitest';
import { MAX_DESCRIPTION_RUNES, MAX_CONTENT_BYTES, MAX_ENTRY_BYTES } from './limits.js';
import { parseEntry, serializeEntry } from './serialize.js';

describe('serializeEntry', () => {
  it('writes the frontmatter then a blank line then the body', () => {
    expect(serializeEntry('cow jokes told', 'moo\n')).toBe('---\ndescription: cow jokes told\n---\n\nmoo\n');
  });

  it.each([
    'a: b',
    '"quoted"',
    "it's",
    '- dash',
    '# hash',
    '123',
    'null',
    '~',
    '---',
    '{x}',
    '[y]',
    '&anchor',
    '*alias',
    '!tag',
    '% pct',
    '@at',
    '`tick`',
    'yes',
    ' lead',
  ])('round-trips the description %j on one header line', (description) => {
    const text = serializeEntry(description, 'body');
    expect(text.split('\n')[1]?.startsWith('description: ')).toBe(true);
    expect(text.split('\n')[2]).toBe('---');
    expect(parseEntry(text)).toEqual({ description: description.trim(), content: 'body' });
  });

  it('keeps a body that holds delimiters and frontmatter of its own', () => {
    const body = '---\ndescription: fake\n---\n\nmore\n---\n';
    expect(parseEntry(serializeEntry('real', body))).toEqual({ description: 'real', content: body });
  });

  it('stays within the maximum entry size at the limits, whatever the description', () => {
    const worst = '"\\'.repeat(MAX_DESCRIPTION_RUNES / 2);
    const text = serializeEntry(worst, 'a'.repeat(MAX_CONTENT_BYTES));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
    const wide = '\u{1F600}'.repeat(MAX_DESCRIPTION_RUNES);
    expect(Buffer.byteLength(serializeEntry(wide, 'a'.repeat(MAX_CONTENT_BYTES)))).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
  });
});

describe('parseEntry is lenient', () => {
  it('reads a file without frontmatter as all body', () => {
    expect(parseEntry('just notes\n')).toEqual({ description: '', content: 'just notes\n' });
  });

  it('reads a file without a closing delimiter as all body', () => {
    const text = '---\ndescription: x\nno close\n';
    expect(parseEntry(text)).toEqual({ description: '', content: text });
  });

  it('accepts a closing delimiter at the very end', () => {
    expect(parseEntry('---\ndescription: only header\n---')).toEqual({ description: 'only header', content: '' });
  });

  it('reads an empty header', () => {
    expect(parseEntry('---\n---\nbody')).toEqual({ description: '', content: 'body' });
  });

  it('strips exactly one newline after the header', () => {
    expect(parseEntry('---\ndescription: d\n---\n\n\nbody')).toEqual({ description: 'd', content: '\nbody' });
    expect(parseEntry('---\ndescription: d\n---\nbody')).toEqual({ description: 'd', content: 'body' });
  });

  it('reads a header that is not valid YAML as all body', () => {
    const text = '---\ndescription: [unclosed\n---\n\nbody';
    expect(parseEntry(text)).toEqual({ description: '', content: text });
  });

  it('reads hand-written headers', () => {
    expect(parseEntry('---\ndescription: 42\n---\nx').description).toBe('42');
    expect(parseEntry('---\ndescription: |\n  two\n  lines\n---\nx').description).toBe('two lines');
    expect(parseEntry('---\ntitle: t\n---\nx')).toEqual({ description: '', content: 'x' });
    expect(parseEntry('---\n- a list\n---\nx')).toEqual({ description: '', content: 'x' });
  });
});
