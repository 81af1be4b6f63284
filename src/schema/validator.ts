/**
 * ajv set-up: one instance, strict, no coercion and no defaults injected, plus the
 * `workspace-path`, `shell-command` and `shell-input` formats and readable error messages for models.
 *
 * The build also compiles the schemas of the built-in tools into standalone validators
 * (ajv's `standaloneCode`, one CommonJS file per schema in `dist/src/schema/precompiled/`,
 * named by the SHA-256 of the canonical schema): a call to a built-in tool then validates
 * without loading ajv's compiler, which costs more than the rest of a `toolgate call`'s own
 * work. A schema with no such file (a user's tool, a changed schema) is compiled as before;
 * the file is found by content, so it can never stand for another schema.
 *
 * @module
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../types/tool.js';
import { clip, kindOf } from '../util/values.js';
import { canonicalSha256 } from '../util/canonical-hash.js';
import { makeFolders } from '../util/folders.js';

/** The format name that marks a path argument (`@format workspace-path` in field TSDoc). */
export const WORKSPACE_PATH_FORMAT = 'workspace-path';

/**
 * The format name that marks an argument holding a workspace path or an http(s) URL
 * (`@format workspace-path-or-url`): a value whose text, trimmed, starts with `http://` or
 * `https://` (any case) is a URL; any other value is a path argument, resolved and judged as
 * a `workspace-path` one (`src/schema/path-arguments.ts`).
 */
export const WORKSPACE_PATH_OR_URL_FORMAT = 'workspace-path-or-url';

/**
 * The format name that marks the command a shell runs (`@format shell-command` in field
 * TSDoc), so that policies find it without guessing from argument names.
 */
export const SHELL_COMMAND_FORMAT = 'shell-command';

/**
 * The format name that marks text typed into a running program's standard input (`@format
 * shell-input` in field TSDoc): what reads it may run it as commands (a shell session, an
 * interpreter), so it is judged like a command line of what reads it (see docs/writing-tools.md).
 */
export const SHELL_INPUT_FORMAT = 'shell-input';

// ajv and ajv-formats are CommonJS and load on the first compile, not with this module: the
// commands that only list tools (`toolgate list`, MCP `tools/list`) never pay for them.
const require = createRequire(import.meta.url);
const ajvClass = (): typeof Ajv => (require('ajv') as typeof import('ajv')).Ajv;
const ajv2020Class = (): typeof Ajv2020 => (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020;
// ajv-formats has a default export; required, the default is a property of the module.
function addFormats(ajv: Ajv): Ajv {
  const module = require('ajv-formats') as { default?: (ajv: Ajv) => Ajv };
  return (module.default ?? (module as unknown as (ajv: Ajv) => Ajv))(ajv);
}

let shared: Ajv | undefined;

/**
 * The options of the shared ajv instance (JSON Schema draft-07, the draft
 * typescript-json-schema emits): `strict` (unknown keywords are schema errors),
 * `coerceTypes: false`, `useDefaults: false` (defaults are documentation for the model; tools
 * apply them), `allErrors: true` (every problem of a call is reported at once, up to
 * {@link MAX_REPORTED_ERRORS}, so a model fixes them in one round trip).
 */
const AJV_OPTIONS = {
  strict: true,
  strictRequired: false,
  // Tuples with optional or rest elements ([string, number?], [string, ...number[]]) are
  // exact draft-07 (items array, minItems, additionalItems); strictTuples would refuse them.
  strictTuples: false,
  allowUnionTypes: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: true,
  validateFormats: true,
} as const;

/** ajv with {@link AJV_OPTIONS}, ajv-formats' formats and ours. */
function newStrictAjv(extra: Record<string, unknown> = {}): Ajv {
  const ajv = new (ajvClass())({ ...AJV_OPTIONS, ...extra });
  addFormats(ajv);
  // Path arguments are checked by the workspace resolver, commands by the shell policy: as
  // formats, any value passes (`true`: known, and no code is generated for it).
  ajv.addFormat(WORKSPACE_PATH_FORMAT, true);
  ajv.addFormat(WORKSPACE_PATH_OR_URL_FORMAT, true);
  ajv.addFormat(SHELL_COMMAND_FORMAT, true);
  ajv.addFormat(SHELL_INPUT_FORMAT, true);
  return ajv;
}

/** The shared ajv instance, made on first use. */
function sharedAjv(): Ajv {
  return (shared ??= newStrictAjv());
}

/** Where the build writes standalone validators (beside this module, in dist/). */
const PRECOMPILED_DIR = fileURLToPath(new URL('./precompiled/', import.meta.url));
/** Bumped when the options or the file shape change, so that older files are never used. */
const PRECOMPILED_FORMAT = 'toolgate-validator-1';

function precompiledKey(schema: JsonSchema): string {
  return canonicalSha256({ format: PRECOMPILED_FORMAT, schema });
}

/** The file of `schema`'s standalone validator (which may not exist). */
function precompiledFile(schema: JsonSchema): string {
  return path.join(PRECOMPILED_DIR, `${precompiledKey(schema)}.cjs`);
}

/** The standalone validator the build wrote for `schema`, if any. */
function precompiledValidator(schema: JsonSchema): ValidateFunction | undefined {
  const file = precompiledFile(schema);
  return fs.existsSync(file) ? (require(file) as ValidateFunction) : undefined;
}

/** Whether a standalone validator was built for `schema` (what {@link compileValidator} then uses). */
export function isPrecompiled(schema: JsonSchema): boolean {
  return fs.existsSync(precompiledFile(schema));
}

/**
 * Build step: write a standalone validator for each schema into `dist/src/schema/precompiled/`
 * (emptied first). Each is ajv's code for the schema under the shared instance's options.
 * @returns how many files were written.
 * @throws Error from ajv when a schema does not compile.
 */
export function writePrecompiledValidators(schemas: Iterable<JsonSchema>): number {
  const standaloneCode = require('ajv/dist/standalone') as (ajv: Ajv, validate: ValidateFunction) => string;
  const ajv = newStrictAjv({ code: { source: true } });
  fs.rmSync(PRECOMPILED_DIR, { recursive: true, force: true });
  makeFolders(PRECOMPILED_DIR);
  const written = new Set<string>();
  for (const schema of schemas) {
    const file = precompiledFile(schema);
    if (written.has(file)) continue;
    fs.writeFileSync(file, `${standaloneCode(ajv, ajv.compile(schema))}\n`);
    written.add(file);
  }
  return written.size;
}

/**
 * A compiled validator: returns `undefined` when the value is valid, else a readable message
 * naming every problem (up to {@link MAX_REPORTED_ERRORS}), each with the path of the value
 * it is about (`argument 'points[0].y'`).
 */
export type Validator = (value: unknown) => string | undefined;

/** How many problems of one value a message names at most; the rest are counted. */
export const MAX_REPORTED_ERRORS = 10;

/**
 * Compile a schema once.
 * @param schema - a JSON Schema (draft-07).
 * @param subject - what is validated, for messages (`argument`, `output`).
 * @param precompiled - use the build's standalone validator of the schema when there is one
 *   (default true; false compiles with ajv, as tests comparing the two do).
 * @throws Error from ajv when the schema itself is invalid.
 */
export function compileValidator(schema: JsonSchema, subject: 'argument' | 'output', precompiled = true): Validator {
  const validate: ValidateFunction = (precompiled ? precompiledValidator(schema) : undefined) ?? sharedAjv().compile(schema);
  return (value) => (validate(value) ? undefined : describeAjvErrors(validate.errors, value, schema, subject));
}

let foreign07: Ajv | undefined;
let foreign2020: Ajv2020 | undefined;

/** Lenient ajv options for schemas written by others: unknown keywords and formats are ignored. */
const FOREIGN_OPTIONS = { strict: false, allowUnionTypes: true, coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: true, validateFormats: true, logger: false } as const;

/**
 * Compile a schema that toolgate did not generate (an MCP server's `inputSchema` or
 * `outputSchema`). Such schemas follow JSON Schema 2020-12 unless their `$schema` names
 * draft-07 (MCP specification 2025-11-25, "JSON Schema usage"), may use keywords and formats
 * our strict instance rejects, and are judged again by the server that wrote them; so they
 * are compiled without strict mode, by a separate ajv instance per draft (unknown formats
 * pass).
 * @param schema - the schema as received.
 * @param subject - what is validated, for messages (`argument`, `output`).
 * @throws Error from ajv when the schema cannot be compiled at all.
 */
export function compileForeignValidator(schema: JsonSchema, subject: 'argument' | 'output'): Validator {
  const draft07 = typeof schema.$schema === 'string' && /draft-0[4-7]/.test(schema.$schema);
  let ajv: Ajv | Ajv2020;
  if (draft07) {
    ajv = foreign07 ??= addLenientFormats(new (ajvClass())(FOREIGN_OPTIONS));
  } else {
    ajv = foreign2020 ??= addLenientFormats(new (ajv2020Class())(FOREIGN_OPTIONS));
  }
  // The meta-schema reference is dropped: a server may name a draft this instance lacks.
  const { $schema: _dialect, ...body } = schema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(body);
  } finally {
    // The instance is shared: forget the schema once compiled (the function keeps what it
    // needs), so that a second schema with the same `$id` (the same tool listed again after
    // list_changed, another server, another bridge in this process) compiles too, and
    // refreshed schemas do not pile up in ajv's cache.
    ajv.removeSchema(body);
  }
  return (value) => (validate(value) ? undefined : describeAjvErrors(validate.errors, value, schema, subject));
}

function addLenientFormats<T extends Ajv | Ajv2020>(ajv: T): T {
  // Without strict mode, formats ajv-formats does not know are ignored (any string passes).
  addFormats(ajv as unknown as Ajv);
  return ajv;
}

/**
 * Check a schema against the JSON Schema draft-07 meta-schema and compile it in strict mode.
 * @returns `undefined` when valid, else what is wrong.
 */
export function checkSchema(schema: unknown): string | undefined {
  const ajv = sharedAjv();
  if (!ajv.validateSchema(schema as object)) return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
  try {
    ajv.compile(schema as object);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** One problem of a schema against the meta-schema of its draft. */
export interface SchemaProblem {
  /** Where in the schema, as a dotted path (`properties.count.type`); `''` for the schema itself. */
  path: string;
  /** What is wrong (ajv's words, with the allowed values when there is a list). */
  message: string;
}

/** The JSON Schema drafts a schema given directly may be written in. */
export type SchemaDraft = 'draft-07' | '2020-12';

/**
 * Check a schema given directly (not generated by `toolgate schemas`) against the JSON Schema
 * meta-schema of its draft: draft-07 (what our generated schemas use) unless its `$schema`
 * names 2020-12. Compiles nothing.
 * @returns the draft, and the problems found (empty when the schema is valid), at most
 *   {@link MAX_REPORTED_ERRORS}, one per place in the schema.
 */
export function metaSchemaProblems(schema: unknown): { draft: SchemaDraft; problems: SchemaProblem[] } {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { draft: 'draft-07', problems: [{ path: '', message: `must be a JSON Schema object; got ${kindOf(schema)}` }] };
  }
  const dialect = (schema as { $schema?: unknown }).$schema;
  let draft: SchemaDraft = 'draft-07';
  if (dialect !== undefined) {
    if (typeof dialect === 'string' && /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/.test(dialect)) draft = '2020-12';
    else if (!(typeof dialect === 'string' && /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/.test(dialect))) {
      return { draft, problems: [{ path: '$schema', message: `names a draft toolgate does not read (${clip(String(dialect), 100)}); use draft-07 (http://json-schema.org/draft-07/schema#) or 2020-12 (https://json-schema.org/draft/2020-12/schema), or leave $schema out for draft-07` }] };
    }
  }
  const ajv: Ajv | Ajv2020 = draft === '2020-12' ? (foreign2020 ??= addLenientFormats(new (ajv2020Class())(FOREIGN_OPTIONS))) : sharedAjv();
  if (ajv.validateSchema(schema) === true) return { draft, problems: [] };
  const problems: SchemaProblem[] = [];
  for (const error of ajv.errors ?? []) {
    const at = pointerToName(error.instancePath);
    if (problems.some((p) => p.path === at)) continue;
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    const message = `${error.message ?? 'is invalid'}${Array.isArray(allowed) ? ` (${allowed.map((v) => JSON.stringify(v)).join(', ')})` : ''}`;
    problems.push({ path: at, message });
    if (problems.length === MAX_REPORTED_ERRORS) break;
  }
  return { draft, problems };
}

function pointerToName(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
}


function valueAt(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  if (pointer === '') return current;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Every problem ajv found, one message each, joined: the errors inside the variants of a
 * failed `anyOf`/`oneOf` are left out (the union's own error says what was expected; the
 * variants' errors contradict one another), duplicates too, and at most
 * {@link MAX_REPORTED_ERRORS} are named.
 */
function describeAjvErrors(errors: ErrorObject[] | null | undefined, root: unknown, schema: JsonSchema, subject: string): string {
  const all = errors ?? [];
  const unions = all.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.schemaPath}/`);
  const messages: string[] = [];
  for (const error of all) {
    if (unions.some((u) => error.schemaPath.startsWith(u))) continue;
    const message = describeAjvError(error, root, schema, subject);
    if (!messages.includes(message)) messages.push(message);
  }
  if (messages.length === 0) return describeAjvError(undefined, root, schema, subject);
  if (messages.length === 1) return messages[0]!;
  const shown = messages.slice(0, MAX_REPORTED_ERRORS).map((m, i) => `(${i + 1}) ${m}`);
  const more = messages.length > MAX_REPORTED_ERRORS ? `; and ${messages.length - MAX_REPORTED_ERRORS} more` : '';
  return `${messages.length} problems: ${shown.join('; ')}${more}`;
}

function describeAjvError(error: ErrorObject | undefined, root: unknown, schema: JsonSchema, subject: string): string {
  if (error === undefined) return `${subject}s do not match the schema`;
  const where = clip(pointerToName(error.instancePath), 200);
  const field = where ? `${subject} '${where}'` : `${subject}s`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = clip(String(params.additionalProperty), 100);
      const parent = valueAt(schema, schemaParentPointer(error.schemaPath)) as { properties?: Record<string, unknown> } | undefined;
      const allowed = parent?.properties ? Object.keys(parent.properties) : [];
      const prefix = where ? `${subject} '${where}' has` : 'there is';
      return `${prefix} an unknown ${subject} '${extra}'` + (allowed.length ? `; allowed: ${allowed.join(', ')}` : '; no other properties are allowed');
    }
    case 'required': {
      const missing = String(params.missingProperty);
      return `missing required ${subject} '${where ? `${where}.` : ''}${missing}'`;
    }
    case 'type': {
      const actual = valueAt(root, error.instancePath);
      let hint = '';
      if (typeof actual === 'string' && (params.type === 'object' || params.type === 'array')) {
        const trimmed = actual.trim();
        if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
          hint = ` (it holds JSON text: send the ${params.type} itself, not a string)`;
        }
      }
      return `${field} must be ${String(params.type)}; got ${kindOf(actual)}${hint}`;
    }
    case 'propertyNames':
      return `${field} has a key that is not allowed (${JSON.stringify(clip(String(params.propertyName), 100))})`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

function schemaParentPointer(schemaPath: string): string {
  // "#/properties/x/additionalProperties" -> "/properties/x"
  const parts = schemaPath.replace(/^#/, '').split('/');
  parts.pop();
  return parts.join('/');
}
