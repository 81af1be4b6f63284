/**
 * dependency-cruiser rules: the module layering of shared/design/ARCHITECTURE.md and the
 * house rule "each dependency lives in one module" (STYLE.md), checked by `npm test`
 * (`npm run depcruise`). Type-only imports count: a cycle through types is still a cycle.
 *
 * Layers of src/, lowest first; a module may import its own layer and the ones below:
 *   base       errors, types, util, logging, decorators, workspace, sandbox (child env), and the
 *              list of runner kinds (src/runner/kinds.ts: the decorator checks against it)
 *   model      schema, formats, modes, closeout, registry, schema-gen, builtin, and the runner
 *              seam (src/runner/runner.ts: requests and outcomes, which close-out reads)
 *   execution  decisions, ledger (the durable store of calls), runner (the runners themselves),
 *              executor
 *   system     system (the ToolSystem facade) and the MCP bridge it starts
 *   surfaces   agents, mcp (the server), cockpit (the web page's server), cli, adapters (toolgate/ai-sdk, /openai-agents, /langchain)
 * The entries src/index.ts (`toolgate`), src/tool.ts (`toolgate/tool`) and src/internal.ts
 * (`toolgate/internal`) sit outside the layers: nothing in src/ imports them; tools import only
 * tool.ts and internal.ts.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */

const BASE = '^src/((errors|types|util|logging|decorators|workspace|sandbox)/|runner/kinds\\.ts$)';
const MODEL = '^src/((schema|formats|modes|closeout|registry|schema-gen|builtin)/|runner/runner\\.ts$)';
const EXECUTION = '^src/((decisions|ledger|executor)/|runner/(?!kinds\\.ts$|runner\\.ts$))';
const SYSTEM = '^src/system/';
const SURFACES = '^src/(agents|mcp|cockpit|cli|adapters)/';

/**
 * Who may import each runtime dependency (paths of src/, tools/, tools-ported/, scripts/;
 * tests may import anything). A dependency not listed here cannot be imported at all: add
 * it here with its one module when it is added to package.json.
 */
const ALLOWED_IMPORTERS = {
  // the framework
  piscina: ['^src/runner/pool/pool-runner\\.ts$', '^scripts/bench\\.ts$' /* the raw-Piscina baseline of the bench */],
  bottleneck: ['^src/decisions/rate-limit\\.ts$'],
  // The distributed mode's optional peers: loaded by src/distributed/peers.ts (the others import their types).
  bullmq: ['^src/distributed/', '^scripts/bench-(distributed|raw-bullmq-worker)\\.ts$'],
  ioredis: ['^src/distributed/', '^scripts/bench-(distributed|raw-bullmq-worker)\\.ts$'],
  'typescript-json-schema': ['^src/schema-gen/(generate|schema-program|literal-order)\\.ts$'],
  // the compiler itself is reached through typescript-json-schema, and read directly only by
  // the API report (a dev script over the built declaration files)
  typescript: ['^scripts/api-report\\.ts$'],
  'reflect-metadata': ['^src/decorators/metadata\\.ts$'],
  semver: ['^src/util/semver\\.ts$'],
  pino: ['^src/logging/logger\\.ts$'],
  'safe-stable-stringify': ['^src/registry/registered-tool\\.ts$'],
  openai: ['^src/agents/model-client\\.ts$'],
  zod: ['^src/mcp/(server|task-methods|task-extension)\\.ts$'],
  // SDK v2's client: the bridge (types; the values through client-sdk, loaded at first use) and its OAuth
  '@modelcontextprotocol/client': ['^src/mcp/(bridge|client-sdk|oauth)\\.ts$'],
  // SDK v2's schemas: the server, and the token file of a bridged OAuth server
  '@modelcontextprotocol/core': ['^src/mcp/(server|oauth)\\.ts$'],
  '@modelcontextprotocol/server': ['^src/mcp/(server|stdio-server|http-server|confirmation|input-required|ask-user|call-client|tasks|task-methods|task-extension|event-store|early-initialize|protocol-server|skills-extension|protocol-errors|lazy-server)\\.ts$', '^src/formats/mcp\\.ts$'],
  'p-limit': ['^src/executor/batch\\.ts$'],
  // OpenTelemetry: the API only (the application brings the SDK); one module
  '@opentelemetry/api': ['^src/executor/telemetry\\.ts$'],
  // the adapters: each framework (an optional peer dependency) in its own file
  ai: ['^src/adapters/ai-sdk\\.ts$'],
  '@openai/agents': ['^src/adapters/openai-agents\\.ts$'],
  '@langchain/core': ['^src/adapters/langchain\\.ts$'],
  // the durable call ledger (SQLite)
  'better-sqlite3': ['^src/ledger/sqlite/'],
  // the PostgreSQL call store (an optional peer, loaded on first use)
  pg: ['^src/ledger/postgres/database\.ts$'],
  // policy files: TOML and globs are read and compiled in one place
  picomatch: ['^src/policy/policy-file\\.ts$'],
  // RFC 8785 hashes: request keys of remembered approvals, arguments of ledger tombstones
  canonicalize: ['^src/util/canonical-hash\\.ts$'],
  // the parser; the bash grammar's wasm ships beside analyze.ts's output (scripts/bundle.ts
  // copies it from tree-sitter-bash, a dev dependency imported by nothing)
  'web-tree-sitter': ['^src/policy/shell/analyze\\.ts$'],
  'tree-sitter-bash': [],
  // one module in the framework, one in the tools (tools never import framework internals)
  'fast-glob': ['^src/util/glob\\.ts$', '^tools-ported/common/glob\\.ts$'],
  ajv: ['^src/schema/validator\\.ts$', '^tools-ported/data/validate-json\\.tool\\.ts$'],
  'ajv-formats': ['^src/schema/validator\\.ts$', '^tools-ported/data/validate-json\\.tool\\.ts$'],
  // the build: the bundler that makes dist/bundle/ (the CLI, the child, the authoring core)
  esbuild: ['^scripts/bundle\\.ts$'],
  // the tools
  '@jmespath-community/jmespath': ['^tools-ported/data/json-query\\.tool\\.ts$'],
  '@mozilla/readability': ['^tools-ported/common/web-text\\.ts$'],
  chardet: ['^tools-ported/inspect/detect-file-type\\.tool\\.ts$'],
  'csv-parse': ['^tools-ported/data/(data-formats|csv-query\\.tool)\\.ts$'],
  'csv-stringify': ['^tools-ported/data/data-formats\\.ts$'],
  diff: ['^tools-ported/edit/apply-diff\\.tool\\.ts$', '^tools-ported/inspect/diff-files\\.tool\\.ts$'],
  'fast-xml-parser': ['^tools-ported/data/data-formats\\.ts$'],
  'file-type': ['^tools-ported/common/image-data\\.ts$', '^tools-ported/inspect/detect-file-type\\.tool\\.ts$'],
  'iconv-lite': ['^tools-ported/common/(text-codec|web-text)\\.ts$'],
  'ipaddr.js': ['^tools-ported/common/net-policy\\.ts$'],
  linkedom: ['^tools-ported/common/web-text\\.ts$'],
  mathjs: ['^tools-ported/misc/calculate\\.tool\\.ts$'],
  'mime-types': ['^tools-ported/inspect/detect-file-type\\.tool\\.ts$'],
  'pdfjs-dist': ['^tools/read-pdf\\.tool\\.ts$'],
  sharp: ['^tools-ported/common/image-data\\.ts$', '^tools-ported/image/resize-image\\.tool\\.ts$'],
  'smol-toml': ['^src/policy/policy-file\\.ts$', '^tools-ported/data/data-formats\\.ts$'],
  'tar-stream': ['^tools-ported/archive/(archive-io|create-archive\\.tool)\\.ts$'],
  turndown: ['^tools-ported/common/web-text\\.ts$'],
  yaml: ['^tools-ported/data/data-formats\\.ts$', '^tools-ported/skills/skill-file\\.ts$'],
  yauzl: ['^tools-ported/archive/archive-io\\.ts$'],
  yazl: ['^tools-ported/archive/create-archive\\.tool\\.ts$'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const packagePath = (name) => `(^|/)node_modules/${escape(name)}/`;
const CODE = '^(src|tools|tools-ported|scripts)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included: split the shared part into its own module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-tools-or-tests',
      severity: 'error',
      comment: 'The framework never imports tools, tests or scripts: they import it.',
      from: { path: '^src/' },
      to: { path: '^(tools|tools-ported|test|scripts|bin)/' },
    },
    {
      name: 'nothing-in-src-imports-the-public-entry',
      severity: 'error',
      comment: 'src/index.ts, src/tool.ts and src/internal.ts are barrels; modules import each other directly.',
      from: { path: '^src/', pathNot: '^src/(index|tool|internal)\\.ts$' },
      to: { path: '^src/(index|tool|internal)\\.ts$' },
    },
    {
      name: 'tools-import-only-the-authoring-entry',
      severity: 'error',
      comment: 'Tool modules import framework code through toolgate/tool (src/tool.ts) and, for the shipped tools\' helpers, toolgate/internal (src/internal.ts) only: they are what every worker loads.',
      from: { path: '^(tools|tools-ported)/' },
      to: { path: '^src/', pathNot: '^src/(tool|internal)\\.ts$' },
    },
    {
      name: 'builtin-tools-share-only-common-code',
      severity: 'error',
      comment: 'tools/ may use the code tools share (tools-ported/common/), not another tool.',
      from: { path: '^tools/' },
      to: { path: '^(tools/|tools-ported/(?!common/))' },
    },
    {
      name: 'ported-tools-not-to-builtin-tools',
      severity: 'error',
      from: { path: '^tools-ported/' },
      to: { path: '^tools/' },
    },
    {
      name: 'tools-not-to-tests',
      severity: 'error',
      from: { path: '^(tools|tools-ported)/' },
      to: { path: '^(test|scripts)/' },
    },
    {
      name: 'authoring-entry-stays-light',
      severity: 'error',
      comment: 'src/tool.ts and src/internal.ts are loaded by every worker: keep ajv, pino, piscina and the rest of the executor out of their reach.',
      from: { path: '^src/(tool|internal)\\.ts$' },
      to: { path: [packagePath('ajv'), packagePath('pino'), packagePath('piscina'), packagePath('bottleneck'), packagePath('typescript-json-schema'), packagePath('openai'), packagePath('@modelcontextprotocol/server'), packagePath('@modelcontextprotocol/client'), packagePath('@modelcontextprotocol/core'), MODEL, EXECUTION, SYSTEM, SURFACES], reachable: true },
    },
    {
      name: 'layer-base',
      severity: 'error',
      comment: 'base modules (errors, types, util, logging, decorators, workspace, sandbox) import only each other.',
      from: { path: BASE },
      to: { path: [MODEL, EXECUTION, SYSTEM, SURFACES] },
    },
    {
      name: 'layer-model',
      severity: 'error',
      comment: 'schema, formats, modes, closeout, registry, schema-gen and builtin are below the executor.',
      from: { path: MODEL },
      to: { path: [EXECUTION, SYSTEM, SURFACES] },
    },
    {
      name: 'layer-execution',
      severity: 'error',
      comment: 'decisions, runners and executor are below the ToolSystem facade and the surfaces.',
      from: { path: EXECUTION },
      to: { path: [SYSTEM, SURFACES] },
    },
    {
      name: 'layer-system',
      severity: 'error',
      comment:
        'The ToolSystem facade (with the ToolCallHandler it builds) is below agents, the MCP server '
        + 'and the CLI. It starts the MCP bridge (src/mcp/bridge.ts, config.ts: connectors below it).',
      from: { path: SYSTEM },
      to: { path: SURFACES, pathNot: ['^src/mcp/(bridge|config)\\.ts$'] },
    },
    {
      name: 'mcp-bridge-below-system',
      severity: 'error',
      comment: 'The MCP bridge is a connector the ToolSystem starts: it must not import the system or the surfaces.',
      from: { path: '^src/mcp/(bridge|config|proxy-names)\\.ts$' },
      to: { path: [SYSTEM, '^src/(agents|cli)/', '^src/mcp/(server|stdio-server|http-server)\\.ts$'] },
    },
    {
      name: 'ledger-below-decisions-and-executor',
      severity: 'error',
      comment: 'The ledger is used by the executor (and the CLI); it may read the decision types, but decisions, runners and the ledger never import each other the other way.',
      from: { path: '^src/(decisions|runner)/' },
      to: { path: '^src/ledger/' },
    },
    {
      name: 'ledger-not-to-executor',
      severity: 'error',
      from: { path: '^src/ledger/' },
      to: { path: '^src/(executor|runner)/' },
    },
    {
      name: 'surfaces-not-to-cli',
      severity: 'error',
      comment: 'agents, mcp and the cockpit do not import the CLI (the CLI hands the cockpit its answer path).',
      from: { path: '^src/(agents|mcp|cockpit)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-commands-not-to-main',
      severity: 'error',
      comment: 'CLI commands and helpers never import the dispatcher (src/cli/main.ts): that was the old cycle.',
      from: { path: '^src/cli/', pathNot: '^src/cli/main\\.ts$' },
      to: { path: '^src/cli/main\\.ts$' },
    },
    ...Object.entries(ALLOWED_IMPORTERS).map(([name, importers]) => ({
      name: `only-allowed-importers-of-${name.replace(/[@/.]/g, '-').replace(/^-/, '')}`,
      severity: 'error',
      comment: `${name} is imported only by: ${importers.join(', ')} (each dependency lives in one module).`,
      from: { path: CODE, pathNot: importers },
      to: { path: packagePath(name) },
    })),
    {
      name: 'no-unlisted-dependency',
      severity: 'error',
      comment: 'A runtime dependency must be listed in ALLOWED_IMPORTERS of .dependency-cruiser.cjs with its one module.',
      from: { path: CODE },
      to: { dependencyTypes: ['npm', 'npm-no-pkg', 'npm-unknown'], pathNot: Object.keys(ALLOWED_IMPORTERS).map(packagePath) },
    },
    {
      name: 'no-mcp-sdk-v1',
      severity: 'error',
      comment: 'SDK v1 (@modelcontextprotocol/sdk) is a dev dependency for the test fixtures only: shipped code and its declaration files use SDK v2 (@modelcontextprotocol/server, /client, /core), type imports included (issue 33: v1 is not installed with toolgate).',
      from: { path: '^(src|tools|tools-ported)/' },
      to: { path: packagePath('@modelcontextprotocol/sdk') },
    },
    {
      name: 'not-to-dev-dependency',
      severity: 'error',
      comment: 'Shipped code (src/, tools/, tools-ported/) must not import a devDependency (an optional peer dependency, also a devDependency for the tests, is the user\'s: the adapters import their framework).',
      from: { path: '^(src|tools|tools-ported)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only', 'npm-peer'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
