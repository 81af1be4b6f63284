/**
 * The last step of `npm run build`: fewer, larger modules on the paths where start-up time
 * counts. Six outputs under `dist/bundle/`:
 * - `core.js`: every module the authoring entries `toolgate/tool` (`src/tool.ts`) and
 *   `toolgate/internal` (`src/internal.ts`, the shipped tools' helpers) reach (the decorator,
 *   the workspace, the sandbox helpers) as one file, but the errors (`errors.js`,
 *   which every command loads). Each of those modules' own file in `dist/src/` is then
 *   rewritten to re-export its names from there, so that
 *   a class such as `PathTraversalError`, or the decorator's metadata, exists once in a
 *   process however it is imported (through `toolgate`, `toolgate/tool`, a tool module, the
 *   files themselves).
 * - `root.js` and `runtime.js`: the modules the root entry `toolgate` (`src/index.ts`)
 *   reaches but the authoring ones, as two files: runtime.js what the pool's worker and the
 *   child reach too, root.js the rest; their files in `dist/src/` re-export from them the
 *   same way ({@link groupBundle}). What every SDK user and test file pays at import
 *   (docs/performance.md).
 * - `mcp.js`: the MCP server modules the root entry loads on first use
 *   (`src/mcp/lazy-server.ts`: `createMcpServer`, `serveStdio`, `serveHttp`), which import
 *   the MCP server SDK; re-exported by their files the same way.
 * - `main.js` and its chunks: the CLI (`src/cli/main.ts`), which `bin/toolgate.js` loads; each
 *   command, and each module loaded on first use, a chunk of its own. `early.js` (what the
 *   CLI starts before its modules load, `src/cli/early.ts`) shares its chunks.
 * - `child.js`: the process runner's child, which the runner starts from here when it exists.
 *
 * And one file that is not code: the bash grammar's wasm (with its licence), copied from the
 * tree-sitter-bash package (a dev dependency) beside `dist/src/policy/shell/analyze.js`, which
 * loads it; the package itself (native sources and prebuilds, about 20 MB) is not installed
 * with toolgate.
 *
 * Why: Node 20 loads an ES module in about 0.7–2 ms (resolution, file operations on the
 * thread pool, linking), and `toolgate call` reached about 100 of them in its own process and
 * 30 in the child's before its tool ran. Bundled, the same code loads in a fraction of that
 * (see docs/performance.md).
 *
 * In every bundled module, `import.meta.url` is the URL of the file it came from (computed
 * from the bundle's own URL, so the package can move), so paths built from it (the child's
 * entry, the worker file, precompiled validators, the tool folders, package.json) point where
 * they did. Packages in node_modules stay imports.
 *
 * Run after tsc, on its fresh output: `npm run build` does both.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform, type BuildOptions, type Plugin } from 'esbuild';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(DIST, 'src');
const OUT = path.join(DIST, 'bundle');
const CORE = path.join(OUT, 'core.js');
/** The authoring entry, `toolgate/tool`. */
const TOOL_ENTRY = path.join(SRC, 'tool.js');
/** The entries tool modules import: `toolgate/tool` and `toolgate/internal`; they re-export their modules' names. */
const ENTRIES = new Set([TOOL_ENTRY, path.join(SRC, 'internal.js')]);
/**
 * Authoring modules with a file of their own in `dist/bundle/` instead of a place in core.js:
 * the errors, which every command loads (`toolgate --version` then loads nothing else of it).
 */
const OWN_FILES = new Map([[path.join(SRC, 'errors', 'errors.js'), path.join(OUT, 'errors.js')]]);
/** The first line of a module rewritten to re-export from `core.js`. */
const SHIM_MARK = '// Bundled into dist/bundle/ by scripts/bundle.ts: this module re-exports its names from there.';

/** `file` as an import specifier relative to the folder `from` (`./x.js`, `../src/x.js`; forward slashes). */
function specifier(from: string, file: string): string {
  const relative = path.relative(from, file).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

const inSrc = (file: string): boolean => file.startsWith(SRC + path.sep);

/** What `import.meta.url` becomes first (an identifier no module uses), before its final text. */
const OWN_URL_MARK = '__toolgate_own_module_url__';

/**
 * Gives each bundled module's `import.meta.url` the URL of the file it came from. The
 * expression is replaced in the syntax tree (esbuild's `define`), not in strings or comments
 * that mention it.
 */
const ownModuleUrls: Plugin = {
  name: 'toolgate-module-urls',
  setup(plugins) {
    plugins.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!inSrc(args.path)) return undefined;
      const text = fs.readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      if (text.includes(OWN_URL_MARK)) throw new Error(`${args.path} uses ${OWN_URL_MARK}, which scripts/bundle.ts reserves`);
      const marked = await transform(text, { loader: 'js', format: 'esm', define: { 'import.meta.url': OWN_URL_MARK }, sourcemap: 'inline', sourcefile: args.path });
      const own = `new URL(${JSON.stringify(specifier(OUT, args.path))}, import.meta.url).href`;
      return { contents: marked.code.replaceAll(OWN_URL_MARK, own), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

const COMMON = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
} satisfies BuildOptions;

/** The compiled modules of `dist/src/` that `dist/src/tool.js` and `dist/src/internal.js` reach, themselves included. */
async function authoringModules(): Promise<string[]> {
  const { metafile } = await build({ ...COMMON, entryPoints: [...ENTRIES], outdir: OUT, write: false, metafile: true, logLevel: 'silent' });
  return Object.keys(metafile.inputs).map((input) => path.resolve(input)).filter(inSrc).sort();
}

/** The names a module exports (run-time names: types are gone from compiled JS). */
async function exportsOf(file: string): Promise<string[]> {
  const { metafile } = await build({ ...COMMON, entryPoints: [file], write: false, metafile: true, logLevel: 'silent', external: ['*'] });
  return Object.values(metafile.outputs).flatMap((output) => output.exports);
}

if (fs.readFileSync(TOOL_ENTRY, 'utf8').startsWith(SHIM_MARK)) {
  process.stderr.write('scripts/bundle.ts: dist/src was bundled already; run `npm run build` (tsc first, then this)\n');
  process.exit(1);
}
const shared = await authoringModules();
const names = new Map<string, string[]>();
const owner = new Map<string, string>();
for (const file of shared) {
  // Names an `export *` passes on are not listed for a module alone: its shim would lose them.
  if (/^\s*export\s*\*/m.test(fs.readFileSync(file, 'utf8'))) throw new Error(`${file}: \`export *\` in a module of toolgate/tool; name what it exports (scripts/bundle.ts lists each module's names)`);
  const own = await exportsOf(file);
  names.set(file, own);
  if (ENTRIES.has(file)) continue; // its names are the others', re-exported
  for (const name of own) {
    if (name === 'default') throw new Error(`${file}: a default export cannot be re-exported from core.js; name it`);
    const other = owner.get(name);
    if (other !== undefined) throw new Error(`${name} is exported by both ${other} and ${file}; core.js needs one name per export`);
    owner.set(name, file);
  }
}
// The entries re-export under the modules' own names (their shims take them from core.js).
for (const entry of ENTRIES) {
  const renamed = names.get(entry)!.filter((name) => !owner.has(name));
  if (renamed.length !== 0) throw new Error(`${path.relative(DIST, entry)} exports ${renamed.join(', ')} under a name its module does not: re-export it under its own name`);
}

/** The file of `dist/bundle/` an authoring module is in: its own for {@link OWN_FILES}, else core.js. */
const homeOf = (file: string): string => OWN_FILES.get(file) ?? CORE;

/** Imports of the authoring modules become imports of their file in `dist/bundle/` (beside the bundles). */
const toHomes = (except?: string): Plugin => ({
  name: 'toolgate-homes',
  setup(plugins) {
    const sharedSet = new Set(shared);
    plugins.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      if (!sharedSet.has(file) || homeOf(file) === except) return undefined;
      return { path: specifier(OUT, homeOf(file)), external: true };
    });
  },
});

/** The root entry, `toolgate`, and its bundle. */
const ROOT_ENTRY = path.join(SRC, 'index.js');
const ROOT = path.join(OUT, 'root.js');
/**
 * Files that a worker thread or a child process loads by path (the pool's worker, the process
 * runner's child when its bundle is stale): they keep their own files, and the modules they
 * reach are bundled apart from the root entry's, into runtime.js, so that a worker loads those
 * and not the whole root entry.
 */
const SEPARATE_ENTRIES = new Set([path.join(SRC, 'runner', 'pool', 'worker.js'), path.join(SRC, 'runner', 'process', 'child.js')]);
const RUNTIME = path.join(OUT, 'runtime.js');
/**
 * The root entry's MCP server modules, which `src/mcp/lazy-server.ts` loads on first use (a
 * `require`, which the bundler does not follow): the modules they reach but root.js and
 * runtime.js hold are bundled into mcp.js, with the MCP server SDK kept an import of it.
 */
const MCP_ENTRY = path.join(SRC, 'mcp', 'server-modules.js');
const MCP = path.join(OUT, 'mcp.js');

/** A bundled group of modules: each module's (alias, name) pairs, the alias being what the group's file exports. */
type Group = Map<string, [alias: string, name: string][]>;

/** Imports of {@link SEPARATE_ENTRIES}, and every `import()` of a module of dist/src, stay imports of their own files. */
const ownFiles: Plugin = {
  name: 'toolgate-own-files',
  setup(plugins) {
    plugins.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      if (!inSrc(file) || (args.kind !== 'dynamic-import' && !SEPARATE_ENTRIES.has(file))) return undefined;
      return { path: specifier(OUT, file), external: true };
    });
  },
};

/** Imports of a module of `group` become imports of its aliases from the group's file `home` (beside the bundles). */
const toGroup = (group: Group, home: string): Plugin => ({
  name: `toolgate-group-${path.basename(home)}`,
  setup(plugins) {
    // A namespace per group: a bundle may import from two groups (mcp.js from runtime.js and root.js).
    const namespace = `toolgate-group-${path.basename(home)}`;
    plugins.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.namespace === namespace) return { path: specifier(OUT, home), external: true };
      const file = path.resolve(args.resolveDir, args.path);
      return group.has(file) ? { path: file, namespace } : undefined;
    });
    plugins.onLoad({ filter: /./, namespace }, (args) => ({
      contents: `export { ${group.get(args.path)!.map(([alias, name]) => `${alias} as ${name}`).join(', ')} } from ${JSON.stringify(specifier(OUT, home))};`,
      resolveDir: OUT,
      loader: 'js',
    }));
  },
});

/** The modules of dist/src that `entries` reach through import statements and that `plugins` leave in the bundle. */
async function reached(entries: string[], plugins: Plugin[]): Promise<string[]> {
  const { metafile } = await build({ ...COMMON, entryPoints: entries, outdir: OUT, write: false, metafile: true, logLevel: 'silent', plugins });
  return Object.keys(metafile.inputs).map((input) => path.resolve(input)).filter(inSrc).sort();
}

/**
 * `modules` as one file, `out`, each module's names exported under an alias of its own
 * (`${prefix}12$name`: two modules may export the same name); their files in dist/src are
 * rewritten to re-export them (below), so a class exists once in a process however it is
 * imported. Node 20 spends about 0.5 ms of CPU on each ES module it loads.
 */
async function groupBundle(modules: string[], out: string, prefix: string, plugins: Plugin[]): Promise<Group> {
  const names: Group = new Map();
  const lists = await Promise.all(modules.map(async (file, index) => {
    if (/^\s*export\s*\*/m.test(fs.readFileSync(file, 'utf8'))) throw new Error(`${file}: \`export *\` in a bundled module; name what it exports (scripts/bundle.ts)`);
    return (await exportsOf(file)).map((name): [string, string] => [`${prefix}${index}$${name}`, name]);
  }));
  modules.forEach((file, index) => names.set(file, lists[index]!));
  const entry = modules.map((file) => `export { ${names.get(file)!.map(([alias, name]) => `${name} as ${alias}`).join(', ')} } from ${JSON.stringify(specifier(SRC, file))};`).join('\n');
  await build({ ...COMMON, stdin: { contents: entry, resolveDir: SRC, sourcefile: `${path.basename(out)}-entry.js` }, outfile: out, sourcemap: 'linked', plugins: [...plugins, ownModuleUrls] });
  return names;
}

/** runtime.js (what the pool's worker and the child reach), root.js (the rest of what the root entry reaches) and mcp.js (what its MCP server functions load on first use). */
async function runtimeRootAndMcp(): Promise<[runtime: Group, root: Group, mcp: Group]> {
  const runtimeModules = (await reached([...SEPARATE_ENTRIES], [toHomes(), ownFiles])).filter((file) => !SEPARATE_ENTRIES.has(file));
  const runtime = await groupBundle(runtimeModules, RUNTIME, 'r', [toHomes(), ownFiles]);
  const rootPlugins = [toHomes(), ownFiles, toGroup(runtime, RUNTIME)];
  const rootModules = (await reached([ROOT_ENTRY], rootPlugins)).filter((file) => !runtime.has(file));
  const root = await groupBundle(rootModules, ROOT, 'm', rootPlugins);
  const mcpPlugins = [...rootPlugins, toGroup(root, ROOT)];
  const mcpModules = (await reached([MCP_ENTRY], mcpPlugins)).filter((file) => !runtime.has(file) && !root.has(file));
  return [runtime, root, await groupBundle(mcpModules, MCP, 'p', mcpPlugins)];
}
fs.rmSync(OUT, { recursive: true, force: true });
// The files of their own, each from its module alone (it may import no other authoring module).
for (const [file, home] of OWN_FILES) {
  const { metafile } = await build({ ...COMMON, entryPoints: [file], outfile: home, sourcemap: 'linked', metafile: true, plugins: [ownModuleUrls] });
  const inputs = Object.keys(metafile.inputs).map((input) => path.resolve(input)).filter(inSrc);
  if (inputs.length !== 1) throw new Error(`${file} has a file of its own in dist/bundle but imports ${inputs.filter((input) => input !== file).join(', ')}`);
}
// The core, from the modules as tsc wrote them.
const coreEntry = shared.filter((file) => !ENTRIES.has(file) && !OWN_FILES.has(file)).map((file) => `export * from ${JSON.stringify(specifier(SRC, file))};`).join('\n');
await build({ ...COMMON, stdin: { contents: coreEntry, resolveDir: SRC, sourcefile: 'core-entry.js' }, outfile: CORE, sourcemap: 'linked', plugins: [toHomes(CORE), ownModuleUrls] });

const outputs = { ...COMMON, outdir: OUT, sourcemap: 'linked', metafile: true, plugins: [toHomes(), ownModuleUrls] } satisfies BuildOptions;
const cli = await build({ ...outputs, entryPoints: { main: path.join(SRC, 'cli', 'main.js'), early: path.join(SRC, 'cli', 'early.js') }, splitting: true, chunkNames: 'chunk-[hash]' });
const child = await build({ ...outputs, entryPoints: { child: path.join(SRC, 'runner', 'process', 'child.js') } });

// The root entry's modules: runtime.js and root.js; their own files re-export from them (below).
const [runtime, root, mcp] = await runtimeRootAndMcp();

// Last: the authoring modules' own files re-export from their homes.
for (const file of shared) {
  const byHome = new Map<string, string[]>();
  for (const name of names.get(file)!) {
    const home = homeOf(ENTRIES.has(file) ? owner.get(name)! : file);
    byHome.set(home, [...(byHome.get(home) ?? []), name]);
  }
  const lines = [...byHome].map(([home, list]) => `export { ${list.join(', ')} } from ${JSON.stringify(specifier(path.dirname(file), home))};`);
  fs.writeFileSync(file, `${SHIM_MARK}\n${lines.length === 0 ? 'export {};' : lines.join('\n')}\n`);
  fs.rmSync(`${file}.map`, { force: true });
}

for (const [group, home] of [[runtime, RUNTIME], [root, ROOT], [mcp, MCP]] as const) {
  for (const [file, list] of group) {
    const from = JSON.stringify(specifier(path.dirname(file), home));
    const line = list.length === 0 ? `import ${from};` : `export { ${list.map(([alias, name]) => `${alias} as ${name}`).join(', ')} } from ${from};`;
    fs.writeFileSync(file, `${SHIM_MARK}\n${line}\n`);
    fs.rmSync(`${file}.map`, { force: true });
  }
}

// The bash grammar, beside the module that loads it (src/policy/shell/analyze.ts).
const grammar = path.dirname(fileURLToPath(import.meta.resolve('tree-sitter-bash/package.json')));
fs.copyFileSync(path.join(grammar, 'tree-sitter-bash.wasm'), path.join(SRC, 'policy', 'shell', 'tree-sitter-bash.wasm'));
fs.copyFileSync(path.join(grammar, 'LICENSE'), path.join(SRC, 'policy', 'shell', 'tree-sitter-bash.LICENSE'));

if (process.argv.includes('--verbose')) {
  for (const [name, { metafile }] of [['main', cli], ['child', child]] as const) {
    const bundled = Object.keys(metafile.inputs).filter((input) => inSrc(path.resolve(input))).length;
    const files = Object.keys(metafile.outputs).filter((file) => file.endsWith('.js')).length;
    process.stdout.write(`dist/bundle/${name}.js: ${bundled} modules in ${files} files\n`);
  }
  process.stdout.write(`dist/bundle/runtime.js: ${runtime.size} modules (what the pool's worker and the child reach); root.js: ${root.size} (the rest of toolgate's); mcp.js: ${mcp.size} (its MCP server, on first use)\n`);
  process.stdout.write(`dist/bundle/core.js and ${[...OWN_FILES.values()].map((home) => path.basename(home)).join(', ')}: ${shared.length} modules (those of toolgate/tool and toolgate/internal)\n`);
}
