/**
 * `npm run api-report [-- --check]`: write (or check) `api/<entry>.api.md`, the reviewed
 * API of each package entry in package.json's `exports` (`toolgate`, `toolgate/tool`,
 * `toolgate/internal`, the adapters), one file per entry. Each report lists every exported
 * name with its kind and its declared shape, read from the built declaration files
 * (`dist/src/**.d.ts`) with the TypeScript compiler's type checker, so an export added,
 * removed or reshaped shows in the diff of a commit.
 *
 * The split between public and internal is checked too: a name whose declaration is marked
 * `@internal` (TSDoc) exported from a public entry, or a name of `toolgate/internal` that is
 * not marked `@internal`, fails the run (exit code 1, with or without `--check`).
 * `--root DIR` runs on another package folder (the tests give it a small one).
 *
 * Why not API Extractor: it brings its own TypeScript (6.x, where we compile with 5.9) and
 * takes seconds per entry; this report is one program over the five entries, run by
 * `npm test` (test/scripts/staleness.test.ts) in about a second.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootFlag = process.argv.indexOf('--root');
const root = rootFlag === -1 ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..') : path.resolve(process.argv[rootFlag + 1] ?? '.');
const check = process.argv.includes('--check');
/** The entry whose names are all internal: for the shipped tools, no compatibility promise. */
const INTERNAL_ENTRY = 'toolgate/internal';

interface PackageExports { readonly exports: Record<string, { readonly types: string }> }
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageExports;
const entries = Object.entries(pkg.exports).map(([subpath, target]) => ({
  name: subpath === '.' ? 'toolgate' : `toolgate/${subpath.slice(2)}`,
  file: path.join(root, target.types),
}));

const program = ts.createProgram(entries.map((entry) => entry.file), { strict: true, skipLibCheck: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 });
const checker = program.getTypeChecker();
const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

/** A type's text without the machine's paths: `import("/abs/dist/src/x", …).Name` becomes `Name`. */
function plain(text: string): string {
  return text.replace(/import\("[^"]*"(?:, \{[^}]*\}\s*\})?\)\./g, '');
}

/** One line per member name of a class or interface: `name(…)` for methods, `name` for properties. */
function members(symbol: ts.Symbol): string[] {
  const out: string[] = [];
  const declared = symbol.members ?? new Map();
  for (const [name, member] of declared as Map<string, ts.Symbol>) {
    if (name.startsWith('#') || name === '__constructor' || name === '__index') continue;
    const declaration = member.declarations?.[0];
    if (declaration !== undefined && (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0) continue;
    const type = checker.getTypeOfSymbol(member);
    const isMethod = (member.flags & ts.SymbolFlags.Method) !== 0;
    out.push(`${name}${isMethod ? '()' : ''}: ${isMethod ? `${type.getCallSignatures().length} signature(s)` : plain(checker.typeToString(type, undefined, FORMAT))}`);
  }
  const statics = symbol.exports ?? new Map();
  for (const [name, member] of statics as Map<string, ts.Symbol>) {
    if (name === 'prototype') continue;
    const declaration = member.declarations?.[0];
    if (declaration !== undefined && (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0) continue;
    out.push(`static ${name}`);
  }
  return out.sort();
}

/** Whether an exported symbol's declaration carries the TSDoc tag `@internal`. */
function isInternal(exported: ts.Symbol): boolean {
  const symbol = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported;
  return (symbol.declarations ?? []).some((declaration) => ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal'));
}

/** The report's section for one exported symbol. */
function describe(name: string, exported: ts.Symbol): string {
  const symbol = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported;
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return [`### class ${name}`, ...members(symbol).map((m) => `- ${m}`)].join('\n');
  if (flags & ts.SymbolFlags.Interface) return [`### interface ${name}`, ...members(symbol).map((m) => `- ${m}`)].join('\n');
  if (flags & ts.SymbolFlags.Enum) return `### enum ${name}`;
  if (flags & ts.SymbolFlags.TypeAlias) return `### type ${name}\n\`${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), undefined, FORMAT).slice(0, 400)}\``;
  if (flags & ts.SymbolFlags.Function) {
    const signatures = checker.getTypeOfSymbol(symbol).getCallSignatures().map((s) => plain(checker.signatureToString(s, undefined, FORMAT)));
    return [`### function ${name}`, ...signatures.map((s) => `\`${s}\``)].join('\n');
  }
  if (flags & ts.SymbolFlags.Variable) return `### const ${name}\n\`${checker.typeToString(checker.getTypeOfSymbol(symbol), undefined, FORMAT).slice(0, 400)}\``;
  return `### ${name}`;
}

let stale = 0;
let misplaced = 0;
fs.mkdirSync(path.join(root, 'api'), { recursive: true });
for (const entry of entries) {
  const source = program.getSourceFile(entry.file);
  if (source === undefined) throw new Error(`${entry.file} is missing: run npm run build first`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exported = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol);
  const sections = exported.map((symbol) => ({ name: symbol.getName(), text: describe(symbol.getName(), symbol) })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const internalEntry = entry.name === INTERNAL_ENTRY;
  const wrong = exported.filter((symbol) => isInternal(symbol) !== internalEntry).map((symbol) => symbol.getName()).sort();
  if (wrong.length !== 0) {
    misplaced += wrong.length;
    process.stderr.write(internalEntry
      ? `${entry.name} exports ${wrong.join(', ')}, not marked @internal: mark each declaration \`@internal\` (TSDoc), or export it from a public entry instead\n`
      : `${entry.name} is a public entry but exports ${wrong.join(', ')}, marked @internal: export it from ${INTERNAL_ENTRY} (src/internal.ts) instead, or drop the tag if it is public API\n`);
  }
  const report = [
    `# API report: \`${entry.name}\``,
    '',
    `<!-- Generated by \`npm run api-report\` from ${path.relative(root, entry.file)}; checked by npm test. Review every change. -->`,
    '',
    internalEntry
      ? `${sections.length} exports, all \`@internal\`: the shipped tools' helpers (docs/api.md). No compatibility promise; a public entry may not export them.`
      : `${sections.length} exports.`,
    '',
    ...sections.map((section) => `${section.text}\n`),
  ].join('\n');
  const file = path.join(root, 'api', `${entry.name.replace('/', '-')}.api.md`);
  const relative = path.relative(root, file);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (before === report) {
    process.stdout.write(`${relative}: ${check ? 'up to date' : 'unchanged'} (${sections.length} exports)\n`);
  } else if (check) {
    process.stderr.write(`${relative}: STALE; run \`npm run api-report\`, review the diff, and commit it\n`);
    stale += 1;
  } else {
    fs.writeFileSync(file, report);
    process.stdout.write(`${relative}: written (${sections.length} exports)\n`);
  }
}
if (stale > 0 || misplaced > 0) process.exitCode = 1;
