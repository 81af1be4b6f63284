/**
 * The TypeScript program schema generation reads: compiler options (the nearest tsconfig.json,
 * else strict ES2022 defaults with decorators), and a compiler host that parses declaration
 * files that are not the user's own (TypeScript's `lib.*.d.ts` and `.d.ts` files under a
 * `node_modules` folder: `@types/node` alone is several MB, and these are 90% of a small
 * program's parse time) once per process instead of once per program: `generateSchemas`
 * called again in one process (a test, a watch) parses only the user's files. A parsed file is
 * reused only while its size and modification time are unchanged, and is shared between
 * programs as TypeScript's language service shares files between projects (the checker copies
 * a symbol before it merges another declaration into it, so one program's checking does not
 * change another's). Every other file is read afresh for every program.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as TJS from 'typescript-json-schema';
import { ToolDefinitionError } from '../errors/errors.js';

/** The TypeScript compiler module (typescript-json-schema's, an optional peer dependency). */
type TypeScript = typeof TJS.ts;

/** Parsed declaration files that are not the user's own, by parse options and path, with the size and modification time they were read at. */
const DECLARATION_FILES = new Map<string, { file: TJS.ts.SourceFile; size: number; mtimeMs: number }>();

/** How many parsed declaration files may be kept (TypeScript's libraries and @types/node are about 200). */
const MAX_DECLARATION_FILES = 2000;

/** Compiler options for `cwd`: `tsconfig` (or the nearest tsconfig.json), over the defaults; never emitting. */
export function compilerOptions(ts: TypeScript, cwd: string, tsconfig?: string): TJS.ts.CompilerOptions {
  const defaults: TJS.ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
  };
  const configPath = tsconfig ? path.resolve(cwd, tsconfig) : ts.findConfigFile(cwd, ts.sys.fileExists, 'tsconfig.json');
  if (!configPath) return defaults;
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw ToolDefinitionError.other('?', `Cannot read ${configPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  return { ...defaults, ...parsed.options, noEmit: true, declaration: false, sourceMap: false, declarationMap: false, incremental: false, composite: false };
}

/**
 * A program over `files` whose declaration files from TypeScript and `node_modules` come from the per-process cache.
 * @returns the program, as `ts.createProgram(files, options)` would make it.
 */
export function createSchemaProgram(ts: TypeScript, files: readonly string[], options: TJS.ts.CompilerOptions): TJS.ts.Program {
  const host = ts.createCompilerHost(options);
  const libraryFolder = path.resolve(path.dirname(ts.getDefaultLibFilePath(options)));
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    const resolved = path.resolve(fileName);
    const shared = /\.d\.[cm]?ts$/.test(resolved) && (path.dirname(resolved) === libraryFolder || resolved.split(path.sep).includes('node_modules'));
    if (shouldCreateNewSourceFile === true || !shared) return read(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    const parse = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions : { languageVersion: languageVersionOrOptions };
    const key = `${parse.languageVersion}:${parse.impliedNodeFormat ?? ''}:${parse.jsDocParsingMode ?? ''}:${resolved}`;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(resolved);
    } catch {
      return read(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    }
    const kept = DECLARATION_FILES.get(key);
    if (kept !== undefined && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) return kept.file;
    const file = read(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    if (file === undefined) DECLARATION_FILES.delete(key);
    else if (kept !== undefined || DECLARATION_FILES.size < MAX_DECLARATION_FILES) DECLARATION_FILES.set(key, { file, size: stat.size, mtimeMs: stat.mtimeMs });
    return file;
  };
  return ts.createProgram(files, options, host);
}
