import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allKeyPaths, parseConfigForMode } from '../src/config/index.js';

const root = join(import.meta.dirname, '..');
const docsDir = join(root, 'docs');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/** Every fenced yaml block in a Markdown file that looks like an agent.yaml (not a fragment). */
function yamlBlocks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').filter((block) => !block.startsWith('# fragment'));
}

describe('docs/configuration.md', () => {
  const doc = readFileSync(join(docsDir, 'configuration.md'), 'utf8');
  const documented = new Set([...doc.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]));

  it('documents every key the schema accepts', () => {
    const missing = allKeyPaths().filter((k) => !documented.has(k));
    expect(missing).toEqual([]);
  });

  it('documents no key the schema lacks, apart from backend options', () => {
    const known = new Set(allKeyPaths());
    const extra = [...documented].filter((k) => k !== undefined && !known.has(k) && !/\.options\./.test(k));
    expect(extra).toEqual([]);
  });
});

describe('example configurations', () => {
  const examples: [string, string][] = [];
  for (const file of markdownFiles(docsDir)) {
    yamlBlocks(file).forEach((block, i) => examples.push([`${file.slice(root.length + 1)} block ${i + 1}`, block]));
  }
  for (const file of readdirSync(join(docsDir, 'examples'))) {
    examples.push([`docs/examples/${file}`, readFileSync(join(docsDir, 'examples', file), 'utf8')]);
  }
  const readme = join(root, 'README.md');
  yamlBlocks(readme).forEach((block, i) => examples.push([`README.md block ${i + 1}`, block]));

  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  it.each(examples)('%s parses and every runnable one validates for run', (_name, text) => {
    const config = parseConfigForMode({ text, name: _name }, 'info');
    if (config.llm.model !== '' && (config.systemPrompt !== '' || config.expose.mcp !== undefined)) {
      expect(() => parseConfigForMode({ text, name: _name }, 'run')).not.toThrow();
    }
  });

  it('reads the OpenVox documentation agent as written', () => {
    const config = parseConfigForMode({ path: join(docsDir, 'examples', 'openvox.yaml') }, 'run');
    expect(config.identity).toBe('OpenVOX');
    expect(config.harness.knowledge).toMatchObject({ enabled: true, expandToSection: true, readTool: true });
    expect(config.harness.knowledge.citations).toHaveLength(2);
    expect(config.llm.budget).toMatchObject({ maxTokens: 100_000, maxIterations: 50 });
  });
});
