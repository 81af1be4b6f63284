/**
 * The schema programs (test/schema-programs/*.ts): small TypeScript tool files covering what
 * users write, each run through `toolgate schemas` (in process), with the expected outcome
 * committed beside it as `<name>.expected.json`: the generated entries and whether the OpenAI
 * strict export is strict, or the error that refuses the program. Shared by the test
 * (test/schema-gen/schema-programs.test.ts) and by `npm run schema-programs`, which rewrites
 * the expectations on purpose.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportTool } from '../../src/formats/export.js';
import type { OpenAITool } from '../../src/formats/openai.js';
import type { SchemaFile, SchemaFileEntry } from '../../src/schema/schema-file.js';
import { cliInProcess } from '../cli/in-process.js';
import { REPO_ROOT } from '../helpers.js';

/** Folder of the programs, relative to the repository root. */
export const PROGRAMS_DIR = 'test/schema-programs';
/** The programs' own compiler options (no @types/node: a small program builds in about a second). */
const TSCONFIG = `${PROGRAMS_DIR}/tsconfig.json`;

/** What a program is expected to give. */
export interface ProgramExpectation {
  /** Generated entries keyed by `name@version` (when the program is accepted). */
  tools?: Record<string, SchemaFileEntry>;
  /** Per tool: true when the OpenAI strict export is strict, false when it falls back. */
  openaiStrict?: Record<string, boolean>;
  /** The message `toolgate schemas` refuses the program with (when it is refused). */
  error?: string;
}

/** Names of the programs (file names without `.ts`), sorted. */
export function programNames(): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, PROGRAMS_DIR))
    .filter((f) => f.endsWith('.ts') && f !== 'tool.ts')
    .map((f) => f.slice(0, -3))
    .sort();
}

/** Path of a program's expectation file. */
export function expectationPath(name: string): string {
  return path.join(REPO_ROOT, PROGRAMS_DIR, `${name}.expected.json`);
}

/** The committed expectation of a program. */
export function readExpectation(name: string): ProgramExpectation {
  return JSON.parse(fs.readFileSync(expectationPath(name), 'utf8')) as ProgramExpectation;
}

/**
 * Run `toolgate schemas` on some programs at once, from the repository root.
 * @returns the schema file written, or the error text (`toolgate: ...` stripped).
 */
export async function generatePrograms(names: string[]): Promise<{ file?: SchemaFile; error?: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-programs-'));
  try {
    const out = path.join(dir, 'tool-schemas.json');
    const run = await cliInProcess(['schemas', ...names.map((n) => `${PROGRAMS_DIR}/${n}.ts`), '--tsconfig', TSCONFIG, '--out', out]);
    if (run.code !== 0) return { error: run.stderr.replace(/^toolgate: /, '').trim() };
    return { file: JSON.parse(fs.readFileSync(out, 'utf8')) as SchemaFile };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The OpenAI strict export of an entry (the other formats are exported by the test). */
export function strictExport(entry: SchemaFileEntry): OpenAITool {
  return exportTool({ ...entry, readOnly: true, kind: 'internal', tags: [] }, 'openai-strict') as OpenAITool;
}

/** The expectation of one program's outcome. */
export function expectationOf(name: string, outcome: { file?: SchemaFile; error?: string }): ProgramExpectation {
  if (outcome.error !== undefined) return { error: outcome.error };
  const tools: Record<string, SchemaFileEntry> = {};
  const openaiStrict: Record<string, boolean> = {};
  for (const [key, entry] of Object.entries(outcome.file!.tools)) {
    if (entry.source !== `${PROGRAMS_DIR}/${name}.ts`) continue;
    tools[key] = entry;
    openaiStrict[key] = strictExport(entry).function.strict === true;
  }
  return { tools, openaiStrict };
}
