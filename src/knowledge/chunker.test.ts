import { describe, expect, it } from 'vitest';
import { chunkMarkdown, headingText } from './chunker.js';

describe('chunkMarkdown', () => {
  it('splits on headings and keeps the breadcrumb apart from the body', () => {
    const doc = chunkMarkdown('# Guide\n\nIntro.\n\n## Install\n\nSteps.\n\n### Linux\n\nApt.\n\n## Use\n\nRun it.\n');
    expect(doc.title).toBe('Guide');
    expect(doc.chunks).toEqual([
      { headingPath: 'Guide', content: 'Intro.' },
      { headingPath: 'Guide > Install', content: 'Steps.' },
      { headingPath: 'Guide > Install > Linux', content: 'Apt.' },
      { headingPath: 'Guide > Use', content: 'Run it.' },
    ]);
  });

  it('reads underlined headings, and a rule after a blank line as a rule', () => {
    const doc = chunkMarkdown('Guide\n=====\n\nIntro.\n\nInstall\n-------\n\nSteps.\n\n---\n\nMore steps.\n');
    expect(doc.title).toBe('Guide');
    expect(doc.chunks).toEqual([
      { headingPath: 'Guide', content: 'Intro.' },
      { headingPath: 'Guide > Install', content: 'Steps.\n\n---\n\nMore steps.' },
    ]);
  });

  it('never splits a fenced code block and does not read # inside it as a heading', () => {
    const code = ['```sh', ...Array.from({ length: 60 }, (_, i) => `# step ${i} ${'x'.repeat(20)}`), '```'].join('\n');
    const doc = chunkMarkdown(`# A\n\nbefore\n\n${code}\n\nafter\n`, 300);
    const fenced = doc.chunks.filter((c) => c.content.includes('```sh'));
    expect(fenced).toHaveLength(1);
    expect(fenced[0]?.content.endsWith('```')).toBe(true);
    expect(doc.chunks.every((c) => c.headingPath === 'A')).toBe(true);
  });

  it('keeps an unterminated fence to the end of the file', () => {
    const doc = chunkMarkdown('# A\n\n~~~\n# not a heading\nstill code');
    expect(doc.chunks).toEqual([{ headingPath: 'A', content: '~~~\n# not a heading\nstill code' }]);
  });

  it('packs paragraphs up to the size and splits an over-long one', () => {
    const para = 'word '.repeat(100).trim();
    const doc = chunkMarkdown(`${para}\n\n${para}\n\n${para}`, 700);
    expect(doc.chunks.length).toBe(3);
    const long = chunkMarkdown('y'.repeat(2500), 1000);
    expect(long.chunks.map((c) => c.content.length)).toEqual([1000, 1000, 500]);
    expect(doc.title).toBe('');
  });

  it('pops the breadcrumb on a shallower heading and drops empty sections', () => {
    const doc = chunkMarkdown('## B\n\n### C\n\n# D\n\nbody\n');
    expect(doc.chunks).toEqual([{ headingPath: 'D', content: 'body' }]);
  });

  it('gives a document of headings only one chunk of them, so it can be found', () => {
    expect(chunkMarkdown('# Deploy\n').chunks).toEqual([{ headingPath: 'Deploy', content: 'Deploy' }]);
    expect(chunkMarkdown('# Runbook\n\n## Rollback\n\n## Failover\n').chunks).toEqual([
      { headingPath: 'Runbook', content: 'Runbook\nRollback\nFailover' },
    ]);
    // a document with a body anywhere keeps the rule that an empty section makes no chunk
    expect(chunkMarkdown('# A\n\n## B\n\nbody\n').chunks).toEqual([{ headingPath: 'A > B', content: 'body' }]);
    expect(chunkMarkdown('').chunks).toEqual([]);
    expect(chunkMarkdown('# \n').chunks).toEqual([]);
  });

  it('keeps only the words of a heading: badges dropped, links to their text, tags and ticks removed', () => {
    const doc = chunkMarkdown(
      '# tool [![Build](https://ci.example/b.svg)](https://ci.example)\n\nIntro.\n\n## The `run()` [method](https://x.example/m) <sub>new</sub>\n\nBody.\n',
    );
    expect(doc.title).toBe('tool');
    expect(doc.chunks).toEqual([
      { headingPath: 'tool', content: 'Intro.' },
      { headingPath: 'tool > The run() method new', content: 'Body.' },
    ]);
    expect(headingText('![logo](l.svg)')).toBe('');
  });
});
