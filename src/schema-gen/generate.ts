/**
 * Build-time schema generation from TypeScript types, with typescript-json-schema. The only
 * module that loads typescript-json-schema (and the TypeScript compiler, which it passes to
 * `schema-program.ts`); the runtime never loads it. Used by `toolgate schemas` and `npm run schemas`.
 *
 * For each class decorated with `@tool(...)` in the given files:
 * - the input schema is the type of `run`'s first parameter (named or inline type);
 * - the output schema is `run`'s return type with `Promise` unwrapped (`null` for void);
 * - the description is the decorator's `description`, else the class TSDoc;
 * - field TSDoc gives argument descriptions and keywords (`@minimum`, `@default`, `@format`...).
 * Schemas are strict (required fields listed, `additionalProperties: false`), string-keyed
 * maps (`Record<string, T>`) keep their value schema, and every schema is checked against
 * the draft-07 meta-schema and compiled by ajv in strict mode.
 *
 * @module
 */
import path from 'node:path';
import type * as TJS from 'typescript-json-schema';
import { findFiles } from '../util/glob.js';
import { tidyDefinitions } from './definitions.js';
import { ToolDefinitionError } from '../errors/errors.js';
import { SCHEMA_FILE_FORMAT, type SchemaFile, type SchemaFileEntry } from '../schema/schema-file.js';
import { checkSchema, SHELL_COMMAND_FORMAT, SHELL_INPUT_FORMAT, WORKSPACE_PATH_FORMAT, WORKSPACE_PATH_OR_URL_FORMAT } from '../schema/validator.js';
import { isValidVersion } from '../util/semver.js';
import { TOOL_NAME_PATTERN } from '../decorators/tool.decorator.js';
import type { JsonSchema } from '../types/tool.js';
import { loadOptional } from '../util/optional-package.js';
import { compilerOptions, createSchemaProgram } from './schema-program.js';
import { literalOrdering, reorderEnums } from './literal-order.js';

export { writeOrCheckSchemaFile } from './schema-file-io.js';

/**
 * The generator and its compiler, optional peer dependencies (a user who loads only the shipped
 * tools, whose schemas are prebuilt, never needs them): importing this module without them
 * fails with a `PackageUnavailableError` naming both.
 */
const tjs = await loadOptional<typeof TJS>('typescript-json-schema', 'schema generation from TypeScript types', ['typescript', 'typescript-json-schema']);
const ts = tjs.ts;
type Type = TJS.ts.Type;
type TypeChecker = TJS.ts.TypeChecker;
const { literalOrder, collectLiterals } = literalOrdering(ts);

/** Options of {@link generateSchemas}. */
export interface GenerateSchemasOptions {
  /** Glob patterns of TypeScript source files, relative to `cwd` (`src/tools/**\/*.ts`). */
  patterns: string[];
  /** Folder the patterns and `source` paths are relative to. Default `process.cwd()`. */
  cwd?: string;
  /** tsconfig.json to take compiler options from. Default: the nearest one above `cwd`, if any. */
  tsconfig?: string;
  /**
   * Refuse to generate when the program has TypeScript errors (the whole program is checked:
   * most of the time of a large one). Default true; false only where `tsc` has just checked
   * the same files under the same tsconfig (the repository's own `npm run schemas -- --check`
   * after `npm run build`).
   */
  typeCheck?: boolean;
}

const GENERATOR_SETTINGS: TJS.PartialArgs = {
  required: true,
  noExtraProps: true,
  strictNullChecks: true,
  ref: false,
  aliasRef: false,
  topRef: false,
  titles: false,
  defaultProps: false,
  propOrder: false,
  ignoreErrors: false,
  validationKeywords: [],
};

/** Private members of typescript-json-schema's generator that this module relies on. */
interface GeneratorInternals {
  getTypeDefinition(type: Type): TJS.Definition;
  resetSchemaSpecificProperties(includeAllOverrides?: boolean): void;
  ReffedDefinitions: Record<string, TJS.Definition>;
  getUnionDefinition(type: TJS.ts.UnionType, modifier: string, definition: JsonSchema): JsonSchema;
  getDefinitionForRootType(type: Type, ...rest: unknown[]): JsonSchema;
}

/**
 * Put typescript-json-schema right where it is wrong, on this generator instance only:
 * - literal unions keep the order they are written in (`'small' | 'medium' | 'large'`), where
 *   the library sorts them;
 * - a tuple whose rest element is not last (`[...string[], number]`), which the library would
 *   turn into a wrong schema, is refused with the way around it.
 */
function correctGenerator(gen: GeneratorInternals, checker: TypeChecker): void {
  const union = gen.getUnionDefinition.bind(gen);
  gen.getUnionDefinition = (type, modifier, definition) => {
    const out = union(type, modifier, definition);
    reorderEnums(definition, literalOrder(type, checker));
    return out;
  };
  const typeDefinition = gen.getTypeDefinition.bind(gen) as (type: Type, ...rest: unknown[]) => TJS.Definition;
  (gen as unknown as { getTypeDefinition: (type: Type, ...rest: unknown[]) => TJS.Definition }).getTypeDefinition = (type, ...rest) => {
    if (type.flags & ts.TypeFlags.BigIntLike) {
      throw new Error('bigint has no JSON form: declare the field as a string of digits (with @pattern ^-?[0-9]+$) and convert it with BigInt() in run, or as a number when it stays below 2^53');
    }
    if (type.flags & ts.TypeFlags.ESSymbolLike) throw new Error('symbol has no JSON form: use a string');
    return typeDefinition(type, ...rest);
  };
  const rootType = gen.getDefinitionForRootType.bind(gen);
  gen.getDefinitionForRootType = (type, ...rest) => {
    const target = checker.isTupleType(type) ? (type as TJS.ts.TypeReference).target as TJS.ts.TupleType : undefined;
    if (target !== undefined) {
      const variable = ts.ElementFlags.Rest | ts.ElementFlags.Variadic;
      const at = target.elementFlags.findIndex((f) => f & variable);
      if (at !== -1 && at !== target.elementFlags.length - 1) {
        throw new Error(`the tuple ${checker.typeToString(type)} has a rest element before its end; JSON Schema can only leave the end of a tuple open: put the rest element last ([A, ...B[]]) or use an object with named fields`);
      }
      if (target.elementFlags.some((f) => f & ts.ElementFlags.Variadic)) {
        throw new Error(`the tuple ${checker.typeToString(type)} spreads a generic tuple; write its elements out ([A, B, ...C[]])`);
      }
    }
    return rootType(type, ...rest);
  };
}

/**
 * Generate the schema file content for the tools defined in the matching files.
 * @returns the file content (tools keyed by `name@version`, sorted).
 * @throws ToolDefinitionError on type errors, duplicate tools, non-literal names or versions,
 *   missing descriptions, non-object inputs, or schemas that fail the meta-schema.
 */
export async function generateSchemas(options: GenerateSchemasOptions): Promise<SchemaFile> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const files = (await findFiles(options.patterns, cwd, ['**/*.d.ts'])).filter((f) => /\.(ts|mts|tsx)$/.test(f));
  const tools: Record<string, SchemaFileEntry> = {};
  if (files.length === 0) return { format: SCHEMA_FILE_FORMAT, $comment: COMMENT, tools };

  const program = createSchemaProgram(ts, files, compilerOptions(ts, cwd, options.tsconfig));
  const diagnostics = options.typeCheck === false ? [] : ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (diagnostics.length) {
    const text = ts.formatDiagnostics(diagnostics.slice(0, 10), { getCanonicalFileName: (f) => f, getCurrentDirectory: () => cwd, getNewLine: () => '\n' });
    throw ToolDefinitionError.other('?', `TypeScript errors prevent schema generation:\n${text}`);
  }
  // typescript-json-schema checks the whole program itself unless told to ignore errors.
  const generator = tjs.buildGenerator(program, options.typeCheck === false ? { ...GENERATOR_SETTINGS, ignoreErrors: true } : GENERATOR_SETTINGS);
  if (generator === null) throw ToolDefinitionError.other('?', 'typescript-json-schema could not build a generator for these files');
  const gen = generator as unknown as GeneratorInternals;
  const checker = program.getTypeChecker();
  correctGenerator(gen, checker);

  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) continue;
    const source = path.relative(cwd, file).split(path.sep).join('/');
    visit(sourceFile);
    function visit(node: TJS.ts.Node): void {
      if (ts.isClassDeclaration(node)) {
        const entry = entryForClass(node, checker, gen, source);
        if (entry !== undefined) {
          const key = `${entry.name}@${entry.version}`;
          if (tools[key]) throw ToolDefinitionError.fromDuplicate(`${key} (${tools[key]!.source} and ${source})`);
          tools[key] = entry;
        }
      }
      ts.forEachChild(node, visit);
    }
  }
  const sorted: Record<string, SchemaFileEntry> = {};
  for (const key of Object.keys(tools).sort()) sorted[key] = tools[key]!;
  return { format: SCHEMA_FILE_FORMAT, $comment: COMMENT, tools: sorted };
}

const COMMENT = 'Generated by `toolgate schemas` from TypeScript types and TSDoc. Do not edit; regenerate.';

function toolDecoratorArgument(node: TJS.ts.ClassDeclaration): TJS.ts.ObjectLiteralExpression | undefined {
  for (const decorator of ts.getDecorators(node) ?? []) {
    const expr = decorator.expression;
    if (!ts.isCallExpression(expr)) continue;
    const callee = expr.expression;
    const calleeName = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
    if (calleeName !== 'tool') continue;
    const arg = expr.arguments[0];
    if (arg && ts.isObjectLiteralExpression(arg)) return arg;
    throw ToolDefinitionError.other(node.name?.text ?? '?', `@tool on ${node.name?.text ?? 'a class'} must take an object literal of options`);
  }
  return undefined;
}

function literalOption(options: TJS.ts.ObjectLiteralExpression, key: string, checker: TypeChecker): string | undefined {
  for (const prop of options.properties) {
    if (!ts.isPropertyAssignment(prop)) continue;
    const propName = ts.isStringLiteral(prop.name) || ts.isIdentifier(prop.name) ? prop.name.text : prop.name.getText();
    if (propName !== key) continue;
    const init = prop.initializer;
    if (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) return init.text;
    const type = checker.getTypeAtLocation(init);
    if (type.isStringLiteral()) return type.value;
    return undefined;
  }
  return undefined;
}

function entryForClass(node: TJS.ts.ClassDeclaration, checker: TypeChecker, gen: GeneratorInternals, source: string): SchemaFileEntry | undefined {
  const options = toolDecoratorArgument(node);
  if (options === undefined) return undefined;
  const className = node.name?.text ?? '(anonymous)';
  const name = literalOption(options, 'name', checker);
  const version = literalOption(options, 'version', checker);
  if (name === undefined || !TOOL_NAME_PATTERN.test(name)) {
    throw ToolDefinitionError.other(className, `@tool on ${className} (${source}): name must be a string literal matching ${TOOL_NAME_PATTERN}`);
  }
  if (version === undefined || !isValidVersion(version)) {
    throw ToolDefinitionError.other(name, `@tool ${name} (${source}): version must be a string literal holding a valid semver version such as "1.0.0"; got ${version === undefined ? 'a non-literal' : JSON.stringify(version)}`);
  }
  const key = `${name}@${version}`;

  let description = literalOption(options, 'description', checker);
  if (description === undefined && node.name) {
    const symbol = checker.getSymbolAtLocation(node.name);
    description = symbol ? ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() : '';
  }
  if (!description) throw ToolDefinitionError.fromBadSchema(key, `no description: add a TSDoc summary to class ${className} (${source}) or a description option`);

  // run may be inherited (class ListFiles extends BaseTool<ListFilesInput>): take the class's
  // own view of it, with the base class's type parameters filled in.
  const runSymbol = checker.getTypeAtLocation(node).getProperty('run');
  const run = runSymbol?.declarations?.find((d): d is TJS.ts.MethodDeclaration => ts.isMethodDeclaration(d));
  if (runSymbol === undefined || run === undefined) throw ToolDefinitionError.fromBadSchema(key, `class ${className} (${source}) has no run(args, ctx) method (a method, not a property holding a function)`);
  const signatures = checker.getTypeOfSymbolAtLocation(runSymbol, node).getCallSignatures();
  if (signatures.length !== 1) throw ToolDefinitionError.fromBadSchema(key, `${className}.run (${source}) must have exactly one signature; got ${signatures.length} (overloads cannot be described by one schema)`);
  const signature = signatures[0]!;

  let inputSchema: JsonSchema;
  const param = signature.parameters[0];
  const generate = (type: Type, which: string): JsonSchema => {
    try {
      return schemaOf(type, checker, gen, which === 'input');
    } catch (error) {
      throw ToolDefinitionError.fromBadSchema(key, `cannot generate the ${which} schema of ${className}.run (${source}): ${(error as Error).message}`);
    }
  };
  if (param === undefined) {
    inputSchema = { type: 'object', properties: {}, additionalProperties: false };
  } else {
    inputSchema = generate(checker.getTypeOfSymbolAtLocation(param, node), 'input');
  }
  if (inputSchema.type !== 'object') {
    const got = inputSchema.type !== undefined ? JSON.stringify(inputSchema.type) : inputSchema.anyOf !== undefined ? 'a union (anyOf)' : JSON.stringify(inputSchema);
    throw ToolDefinitionError.fromBadSchema(key, `the first parameter of ${className}.run must be an object type (an interface, a type literal or a class), because tool arguments are a JSON object; got ${got}. Wrap it in an object: run(args: { value: ... }); for a union of shapes, use one object with a discriminating field and optional fields`);
  }
  inputSchema.properties ??= {};

  const returned = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  const voidish = ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never;
  const outputSchema = returned.flags & voidish ? null : generate(returned, 'output');

  const nested = nestedPathFormat(inputSchema);
  if (nested !== undefined) {
    throw ToolDefinitionError.fromBadSchema(key, `@format workspace-path (or workspace-path-or-url) on ${nested} (${source}): path arguments must be top-level properties of type string or string[], so that gates can find and check them`);
  }
  for (const format of [SHELL_COMMAND_FORMAT, SHELL_INPUT_FORMAT]) {
    const misplaced = misplacedCommandFormat(inputSchema, format);
    if (misplaced !== undefined) {
      throw ToolDefinitionError.fromBadSchema(key, `@format ${format} on ${misplaced} (${source}): ${format === SHELL_INPUT_FORMAT ? 'shell-input' : 'command'} arguments must be top-level properties of type string, so that policies can find and check them`);
    }
  }
  closeOpenMaps(inputSchema);
  for (const [which, schema] of [['input', inputSchema], ['output', outputSchema]] as const) {
    if (schema === null) continue;
    const problem = checkSchema(schema);
    if (problem !== undefined) throw ToolDefinitionError.fromBadSchema(key, `${which} schema: ${problem}`);
  }
  reflowDescriptions(inputSchema);
  if (outputSchema) reflowDescriptions(outputSchema);
  return { name, version, description: reflow(description), className, source, inputSchema, outputSchema };
}

/** Keys that open maps never accept in arguments (case A1: prototype pollution). */
const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'];

/** Give every open map (`additionalProperties` a schema) `propertyNames` that refuse {@link FORBIDDEN_KEYS}. */
function closeOpenMaps(schema: unknown): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const s of schema) closeOpenMaps(s);
    return;
  }
  const s = schema as JsonSchema;
  if (s.additionalProperties && typeof s.additionalProperties === 'object' && s.propertyNames === undefined) {
    s.propertyNames = { not: { enum: FORBIDDEN_KEYS } };
  }
  for (const value of Object.values(s)) if (value && typeof value === 'object') closeOpenMaps(value);
}

/**
 * Where a `workspace-path` (or `workspace-path-or-url`) format sits anywhere but on a top-level property, its array items,
 * or its `anyOf` variants (the places gates look), if anywhere.
 */
function nestedPathFormat(input: JsonSchema): string | undefined {
  const anywhere = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object') return false;
    const format = (node as JsonSchema).format;
    if (format === WORKSPACE_PATH_FORMAT || format === WORKSPACE_PATH_OR_URL_FORMAT) return true;
    return Object.values(node as object).some(anywhere);
  };
  for (const [name, prop] of Object.entries((input.properties ?? {}) as Record<string, JsonSchema>)) {
    if (prop === null || typeof prop !== 'object') continue;
    const { format: _f, items, anyOf, ...rest } = prop;
    const shallow = (n: unknown) => (n !== null && typeof n === 'object' ? (({ format: _g, ...r }) => r)(n as JsonSchema) : n);
    if (anywhere(rest) || anywhere(shallow(items)) || (Array.isArray(anyOf) && anyOf.some((v) => anywhere(shallow(v))))) return `${name} (below the top level)`;
  }
  const { properties: _p, ...others } = input;
  return anywhere(others) ? '(a schema outside the properties)' : undefined;
}

/** Where a `shell-command` (or `shell-input`) format sits anywhere but on a top-level string property, if anywhere. */
function misplacedCommandFormat(input: JsonSchema, wanted: string): string | undefined {
  const anywhere = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object') return false;
    if ((node as JsonSchema).format === wanted) return true;
    return Object.values(node as object).some(anywhere);
  };
  for (const [name, prop] of Object.entries((input.properties ?? {}) as Record<string, JsonSchema>)) {
    if (prop === null || typeof prop !== 'object') continue;
    const { format, ...rest } = prop;
    if (anywhere(rest)) return `${name} (below the top level)`;
    if (format === wanted && prop.type !== 'string') return `${name} (not of type string)`;
  }
  const { properties: _p, ...others } = input;
  return anywhere(others) ? '(a schema outside the properties)' : undefined;
}

/** Join the hard-wrapped lines of TSDoc into paragraphs (blank lines stay paragraph breaks). */
function reflow(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

function reflowDescriptions(schema: unknown): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const s of schema) reflowDescriptions(s);
    return;
  }
  const s = schema as JsonSchema;
  if (typeof s.description === 'string') s.description = reflow(s.description);
  for (const value of Object.values(s)) if (value && typeof value === 'object') reflowDescriptions(value);
}

function schemaOf(type: Type, checker: TypeChecker, gen: GeneratorInternals, input: boolean): JsonSchema {
  gen.resetSchemaSpecificProperties(false);
  const definition = gen.getTypeDefinition(type) as JsonSchema;
  keepMapValueSchemas(type, definition, checker, gen, 0, input);
  const reffed = gen.ReffedDefinitions;
  if (JSON.stringify(definition).includes('"$ref"') && Object.keys(reffed).length) {
    definition.definitions = JSON.parse(JSON.stringify(reffed)) as JsonSchema;
  }
  return tidyDefinitions(JSON.parse(JSON.stringify(definition)) as JsonSchema);
}

/**
 * typescript-json-schema turns mapped types such as `Record<string, string>` into a bare
 * object (with `noExtraProps`, one that accepts nothing). Walk the type beside its schema and
 * put the value schema back as `additionalProperties` wherever the type has a string index.
 */
function keepMapValueSchemas(type: Type, schema: unknown, checker: TypeChecker, gen: GeneratorInternals, depth: number, input: boolean): void {
  if (depth > 32 || schema === null || typeof schema !== 'object') return;
  const s = schema as JsonSchema;
  const t = checker.getNonNullableType(type);
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];

  if (Array.isArray(s.anyOf) && t.isUnion()) {
    const objectMembers = t.types.filter((m) => m.flags & ts.TypeFlags.Object);
    const objectVariants = (s.anyOf as JsonSchema[]).filter((v) => v.type === 'object' || v.type === 'array');
    if (objectMembers.length === objectVariants.length) {
      objectVariants.forEach((v, i) => keepMapValueSchemas(objectMembers[i]!, v, checker, gen, depth + 1, input));
    }
    return;
  }
  if (types.includes('object')) {
    const found = checker.getIndexInfoOfType(t, ts.IndexKind.String);
    // Record<string, never> is the empty object: keep it closed.
    const index = found !== undefined && !(found.type.flags & ts.TypeFlags.Never) ? found : undefined;
    if (index !== undefined && (s.additionalProperties === undefined || s.additionalProperties === false)) {
      s.additionalProperties = JSON.parse(JSON.stringify(gen.getTypeDefinition(index.type))) as JsonSchema;
      if (s.properties && Object.keys(s.properties as object).length === 0) delete s.properties;
    }
    if (index !== undefined && s.additionalProperties && typeof s.additionalProperties === 'object') {
      keepMapValueSchemas(index.type, s.additionalProperties, checker, gen, depth + 1, input);
    }
    for (const [propName, propSchema] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
      const prop = t.getProperty(propName);
      if (prop === undefined) continue;
      restoreItemTags(prop, propSchema, checker);
      restoreAliasTags(prop, propName, propSchema, checker, input);
      restoreSameLineDoc(prop, propSchema);
      // An inline union (size: 'small' | 'large') has no declaration of its own: order by the property's.
      const declared = prop.valueDeclaration;
      if (declared && (ts.isPropertySignature(declared) || ts.isPropertyDeclaration(declared)) && declared.type) {
        const order: unknown[] = [];
        collectLiterals(declared.type, checker, order, 0);
        reorderEnums(propSchema, order);
      }
      keepMapValueSchemas(checker.getTypeOfSymbol(prop), propSchema, checker, gen, depth + 1, input);
    }
  }
  if (types.includes('array') && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
    const element = checker.getIndexTypeOfType(t, ts.IndexKind.Number);
    if (element !== undefined) keepMapValueSchemas(element, s.items, checker, gen, depth + 1, input);
  }
}

/**
 * TypeScript attaches no TSDoc to a member written on the same line as the brace before it
 * (`run(args: { /** Who. *\/ who: string })`), so such a field would have no description. Read
 * the `/** ... *\/` comment just before the member's name and use its text (tags stay unread:
 * put a member on its own line for `@minimum` and friends).
 */
function restoreSameLineDoc(prop: TJS.ts.Symbol, schema: unknown): void {
  if (schema === null || typeof schema !== 'object' || (schema as JsonSchema).description !== undefined) return;
  const declaration = prop.valueDeclaration;
  if (declaration === undefined || !(ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration))) return;
  // The trivia between the previous token and the member's name holds the comment.
  const trivia = declaration.getSourceFile().text.slice(declaration.pos, declaration.getStart());
  const docs = [...trivia.matchAll(/\/\*\*(?!\/)([\s\S]*?)\*\//g)];
  const last = docs.pop();
  if (last === undefined) return;
  const body = last[1]!
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, ''))
    .join('\n');
  const summary = body.split(/\n\s*@|^\s*@/)[0]!.trim();
  if (summary) (schema as JsonSchema).description = summary;
}

/**
 * Put back the `@items.<keyword>` tags of an optional array property (`paths?: string[]` with
 * `@items.format workspace-path`): with strict null checks its type is `string[] | undefined`,
 * and typescript-json-schema copies the array member's own `items` over the annotated one
 * when it collapses that union, so the tags are lost. Only keywords missing from `items` are
 * set; a value that is not JSON is kept as the tag's text.
 */
function restoreItemTags(prop: TJS.ts.Symbol, schema: unknown, checker: TypeChecker): void {
  if (schema === null || typeof schema !== 'object') return;
  const items = (schema as JsonSchema).items;
  if (items === null || typeof items !== 'object' || Array.isArray(items)) return;
  for (const tag of prop.getJsDocTags(checker)) {
    // TypeScript reads `@items.format x` as the tag "items" with the text ".format x".
    const full = `${tag.name}${(tag.text ?? []).map((part) => part.text).join('')}`;
    const match = /^items\.([A-Za-z$_][\w$]*)\s*([\s\S]*)$/.exec(full);
    if (match === null) continue;
    const keyword = match[1]!;
    if (Object.prototype.hasOwnProperty.call(items, keyword)) continue;
    const text = match[2]!.trim();
    let value: unknown = text === '' ? true : text;
    try {
      value = JSON.parse(text);
    } catch {
      // plain text, as typescript-json-schema keeps it
    }
    (items as JsonSchema)[keyword] = value;
  }
}

/** Validation keywords a type alias's tags give the fields declared with it (`@format workspace-path` on `type WorkspacePath = string`). */
const ALIAS_KEYWORDS = new Set(['format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);

/** The type alias a type reference names (through an import), if it is one. */
function aliasOf(node: TJS.ts.TypeNode, checker: TypeChecker): TJS.ts.TypeAliasDeclaration | undefined {
  if (!ts.isTypeReferenceNode(node)) return undefined;
  let symbol = checker.getSymbolAtLocation(node.typeName);
  if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations?.find((d): d is TJS.ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(d));
}

/** The element type node of `X[]`, `readonly X[]`, `Array<X>` and `ReadonlyArray<X>`, else undefined. */
function elementOf(node: TJS.ts.TypeNode): TJS.ts.TypeNode | undefined {
  if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword) return elementOf(node.type);
  if (ts.isArrayTypeNode(node)) return node.elementType;
  if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && (node.typeName.text === 'Array' || node.typeName.text === 'ReadonlyArray') && node.typeArguments?.length === 1) return node.typeArguments[0];
  return undefined;
}

/** A type node without parentheses and without `null` and `undefined` members of a union (undefined when other members remain). */
function withoutNullish(node: TJS.ts.TypeNode): TJS.ts.TypeNode | undefined {
  while (ts.isParenthesizedTypeNode(node)) node = node.type;
  if (!ts.isUnionTypeNode(node)) return node;
  const members = node.types.filter((m) => !(ts.isLiteralTypeNode(m) && m.literal.kind === ts.SyntaxKind.NullKeyword) && m.kind !== ts.SyntaxKind.UndefinedKeyword);
  return members.length === 1 ? withoutNullish(members[0]!) : undefined;
}

/** Copy an alias's validation tags onto `schema` (only keywords it lacks). */
function applyAliasTags(alias: TJS.ts.TypeAliasDeclaration, schema: JsonSchema): void {
  for (const tag of ts.getJSDocTags(alias)) {
    const keyword = tag.tagName.text;
    if (!ALIAS_KEYWORDS.has(keyword) || Object.prototype.hasOwnProperty.call(schema, keyword)) continue;
    const text = (ts.getTextOfJSDocComment(tag.comment) ?? '').trim();
    // format and pattern are text (`@pattern 123` is the pattern "123"); the bounds are numbers
    const number = Number(text);
    schema[keyword] = keyword === 'format' || keyword === 'pattern' || text === '' || !Number.isFinite(number) ? text : number;
  }
}

/** The name of a `@format workspace-path` alias the type node uses anywhere (through other aliases too), if any. */
function pathAliasIn(node: TJS.ts.Node, checker: TypeChecker, seen: Set<TJS.ts.Node> = new Set()): string | undefined {
  if (seen.has(node) || seen.size > 256) return undefined;
  seen.add(node);
  if (ts.isTypeNode(node)) {
    const alias = aliasOf(node, checker);
    if (alias !== undefined) {
      if (ts.getJSDocTags(alias).some((t) => t.tagName.text === 'format' && (ts.getTextOfJSDocComment(t.comment) ?? '').trim() === WORKSPACE_PATH_FORMAT)) return alias.name.text;
      const inner = pathAliasIn(alias.type, checker, seen);
      if (inner !== undefined) return inner;
    }
  }
  return ts.forEachChild(node, (child) => pathAliasIn(child, checker, seen));
}

/**
 * Put back the validation tags of a type alias on a field declared with it where
 * typescript-json-schema drops them: `target: WorkspacePath | null` (it merges the union into
 * `type: ["null", "string"]`) and `paths: WorkspacePath[]` (the array's `items`), optional or
 * readonly too. A `@format workspace-path` alias that still does not mark the field as a path
 * argument (`WorkspacePath | number`, a tuple, a record, a template literal, an alias of a
 * union) is refused: the gates would not see that path. Only keywords the schema lacks are
 * set; `format` and `pattern` as text, the bounds as numbers.
 * @throws Error naming the field, the alias and the forms a path field may take (input only).
 */
function restoreAliasTags(prop: TJS.ts.Symbol, name: string, schema: unknown, checker: TypeChecker, input: boolean): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as JsonSchema;
  const declared = prop.valueDeclaration;
  if (declared === undefined || !(ts.isPropertySignature(declared) || ts.isPropertyDeclaration(declared)) || declared.type === undefined) return;
  const node = withoutNullish(declared.type);
  const alias = node === undefined ? undefined : aliasOf(node, checker);
  if (alias !== undefined) applyAliasTags(alias, s);
  const element = node === undefined ? undefined : elementOf(node);
  const elementAlias = element === undefined ? undefined : aliasOf(element, checker);
  const items = s.items;
  if (elementAlias !== undefined && items !== null && typeof items === 'object' && !Array.isArray(items)) applyAliasTags(elementAlias, items as JsonSchema);
  if (!input) return;
  const marked = s.format === WORKSPACE_PATH_FORMAT || (items !== null && typeof items === 'object' && !Array.isArray(items) && (items as JsonSchema).format === WORKSPACE_PATH_FORMAT);
  const used = marked ? undefined : pathAliasIn(declared.type, checker);
  if (used !== undefined) {
    throw new Error(`the field ${name} uses the path type ${used} in a form that gates cannot check; declare a path field as ${used}, ${used} | null or ${used}[] (optional or readonly too), at the top level of the arguments`);
  }
}
