/**
 * The layer walls of docs/architecture.md, enforced on every `npm test`.
 *
 *   root       src/cli, src/tui, src/web                 may import anything below; tui and web never import cli
 *   render     src/render                                the renderers every surface shares; middle and below
 *   middle     src/host, src/agent, src/serve, src/remotetools   libraries and leaves
 *   libraries  everything else under src/ (llm, toolkit, ...)    leaves and other libraries, no cycles
 *   leaves     src/config, src/telemetry, src/errors             their own few packages only; any may import src/errors
 *   ground     src/util                                          Node itself only; every layer may import it
 *
 * packages/app (the `@fisk-ai/app` workspace package) stands apart: Node itself only, nothing from
 * fisk-ai, and fisk-ai reaches it through its entry point alone, as an installed package.
 */
const ROOT = '^src/(cli|tui|web)/';
const RENDER = '^src/render/';
const MIDDLE = '^src/(host|agent|serve|remotetools)/';
const LIBRARIES = '^src/(llm|toolkit|memory|knowledge|runstate|tasks|a2a|mcp|conns|agenttest|app)/';
const LEAVES = '^src/(config|telemetry|errors)/';
const GROUND = '^src/util/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'app-package-stands-alone',
      severity: 'error',
      comment: '@fisk-ai/app is installed alone by application authors: it imports nothing from fisk-ai.',
      from: { path: '^packages/app/' },
      to: { path: '^(?!packages/app/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'app-package-no-dependencies',
      severity: 'error',
      comment: '@fisk-ai/app has no dependencies: Node itself only.',
      from: { path: '^packages/app/' },
      to: { dependencyTypesNot: ['core', 'local'] },
    },
    {
      name: 'app-package-through-its-entry',
      severity: 'error',
      comment: 'fisk-ai imports @fisk-ai/app by its name, as any embedder would, never one of its files.',
      from: { path: '^src/' },
      to: { path: '^packages/app/', pathNot: '^packages/app/src/index\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make layers meaningless; break the cycle by moving the shared piece down.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'leaves-stay-leaves',
      severity: 'error',
      comment: 'config and telemetry import nothing else from this repository but the one error base and the ground helpers.',
      from: { path: '^src/(config|telemetry|errors)/' },
      to: { path: '^src/', pathNot: '^src/($1|errors|util)/' },
    },
    {
      name: 'util-is-the-ground',
      severity: 'error',
      comment: 'util is imported by every layer, so it imports nothing from this repository but other util files.',
      from: { path: GROUND },
      to: { path: '^src/', pathNot: GROUND },
    },
    {
      name: 'util-standard-library-only',
      severity: 'error',
      comment: 'util is imported by every layer, so it uses Node itself and nothing else.',
      from: { path: GROUND },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'errors-standard-library-only',
      severity: 'error',
      comment: 'errors is imported by every layer, so it uses Node itself and nothing else.',
      from: { path: '^src/errors/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'config-packages',
      severity: 'error',
      comment: 'config may use only the YAML library and zod besides Node itself.',
      from: { path: '^src/config/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: 'node_modules/(yaml|zod)/',
      },
    },
    {
      name: 'telemetry-packages',
      severity: 'error',
      comment: 'telemetry may use only OpenTelemetry besides Node itself.',
      from: { path: '^src/telemetry/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: 'node_modules/@opentelemetry/',
      },
    },
    {
      name: 'surfaces-beside-commands',
      severity: 'error',
      comment:
        'The full-screen view and the web server are surfaces beside the commands, not below them; what they share with the commands lives in src/render.',
      from: { path: '^src/(tui|web)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'render-under-surfaces',
      severity: 'error',
      comment: 'The shared renderers sit under every surface; they never import commands or a surface.',
      from: { path: RENDER },
      to: { path: ROOT },
    },
    {
      name: 'render-packages',
      severity: 'error',
      comment: 'The shared renderers may use the Markdown libraries, not the command-line framework or the terminal UI.',
      from: { path: RENDER },
      to: { path: 'node_modules/(commander|ink|react)/' },
    },
    {
      name: 'libraries-point-down',
      severity: 'error',
      comment: 'A library never imports the running-agent layer, the shared renderers or the presentation layer.',
      from: { path: LIBRARIES },
      to: { path: `${MIDDLE}|${RENDER}|${ROOT}` },
    },
    {
      name: 'middle-points-down',
      severity: 'error',
      comment: 'host, agent, serve and remotetools never import commands, renderers or presentation.',
      from: { path: MIDDLE },
      to: { path: `${RENDER}|${ROOT}` },
    },
    {
      name: 'leaves-point-down',
      severity: 'error',
      from: { path: LEAVES },
      to: { path: `${MIDDLE}|${RENDER}|${ROOT}|${LIBRARIES}` },
    },
    {
      name: 'errors-is-the-bottom',
      severity: 'error',
      comment: 'errors sits under config and telemetry; it imports neither.',
      from: { path: '^src/errors/' },
      to: { path: '^src/(config|telemetry)/' },
    },
    {
      name: 'public-index-is-for-embedders',
      severity: 'error',
      comment: 'src/index.ts is the public surface; code inside the tree imports modules directly.',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'anthropic-sdk-confined',
      severity: 'error',
      comment: 'Only src/llm/anthropic speaks the Anthropic SDK; everything else uses the neutral types.',
      from: { path: '^src/', pathNot: '^src/llm/anthropic/' },
      to: { path: 'node_modules/@anthropic-ai/sdk/' },
    },
    {
      name: 'openai-sdk-confined',
      severity: 'error',
      comment: 'Only src/llm/openai speaks the OpenAI SDK (embeddings use plain fetch).',
      from: { path: '^src/', pathNot: '^src/llm/openai/' },
      to: { path: 'node_modules/openai/' },
    },
    {
      name: 'headless-core',
      severity: 'error',
      comment:
        'Only the root layer (and, for Markdown, the shared renderers) may use the command-line framework or the terminal UI libraries.',
      from: { path: '^src/', pathNot: `${ROOT}|${RENDER}` },
      to: { path: 'node_modules/(commander|ink|react|marked|marked-terminal)/' },
    },
    {
      name: 'no-unknown-folders',
      severity: 'error',
      comment: 'Every folder under src/ belongs to a layer; add a new one to this file deliberately.',
      from: { path: '^src/[^/]+/', pathNot: `${ROOT}|${RENDER}|${MIDDLE}|${LIBRARIES}|${LEAVES}|${GROUND}` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
