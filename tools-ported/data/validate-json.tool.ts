import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { loadInput } from './data-source.js';
import { parseJson } from './data-formats.js';

/** Arguments of validate_json. */
export interface ValidateJsonInput {
  /**
   * The JSON document to check: a file of the workspace, relative to the workspace root (or
   * absolute inside it). Give this or json.
   * @format workspace-path
   */
  filepath?: string;
  /**
   * The JSON document itself, as text. Give this or filepath.
   * @maxLength 1000000
   */
  json?: string;
  /** The JSON Schema, as an object. Give this or schema_filepath. */
  schema?: { [key: string]: unknown };
  /**
   * A JSON Schema file of the workspace. Give this or schema.
   * @format workspace-path
   */
  schema_filepath?: string;
}

/** One way the document breaks the schema. */
export interface JsonSchemaViolation {
  /** JSON Pointer (RFC 6901) to the value at fault; "" is the whole document. */
  pointer: string;
  /** What is wrong, e.g. "must have required property 'id'", "must be number". */
  message: string;
  /** The schema keyword that failed (`type`, `required`, `enum`...). */
  keyword: string;
  /** JSON Pointer fragment of the failing keyword in the schema (`#/properties/a/type`). */
  schema_path: string;
}

/** What validate_json reports. */
export interface ValidateJsonOutput {
  /** Whether the document satisfies the schema. */
  valid: boolean;
  /** The JSON Schema draft used (from the schema's `$schema`; draft-07 when absent). */
  draft: '2020-12' | '2019-09' | 'draft-07';
  /** Number of violations found (every one, not only the first). */
  error_count: number;
  /** The violations, in the order ajv found them (at most 500). */
  errors: JsonSchemaViolation[];
  /** True when more than 500 violations exist. */
  truncated: boolean;
}

/** Most violations listed. */
export const MAX_LISTED_VIOLATIONS = 500;

// ajv-formats is CommonJS with a default export; under NodeNext the default is the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/**
 * Check a JSON document against a JSON Schema (draft-07, 2019-09 or 2020-12, chosen by the
 * schema's `$schema`) with ajv, reporting every violation with the JSON Pointer of the value
 * at fault. Formats such as date-time, email and uri are checked. Only references inside the
 * schema itself (`#/$defs/...`) resolve: remote or file `$ref`s are refused, never fetched.
 */
@tool({ name: 'validate_json', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'data', tags: ['data', 'ported'], timeoutMs: 30_000, memoryMb: 512 })
export class ValidateJsonTool implements Tool<ValidateJsonInput, ValidateJsonOutput> {
  run(args: ValidateJsonInput, ctx: ToolContext): Promise<ValidateJsonOutput> {
    return validateJson(ctx.workspace, args);
  }
}

const DRAFTS: Record<string, ValidateJsonOutput['draft']> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
};

function draftOf(schema: unknown): ValidateJsonOutput['draft'] {
  const declared = schema !== null && typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  if (declared === undefined) return 'draft-07';
  const key = typeof declared === 'string' ? declared.replace(/#$/, '') : '';
  const draft = DRAFTS[key];
  if (draft === undefined) throw new ToolExecutionError(`the schema's $schema ${JSON.stringify(declared)} is not supported; use draft-07 ("http://json-schema.org/draft-07/schema#"), 2019-09 or 2020-12 ("https://json-schema.org/draft/2020-12/schema"), or leave $schema out for draft-07.`);
  return draft;
}

/** A fresh ajv for one schema: all errors, formats checked, unknown keywords tolerated, nothing loaded from outside. */
function ajvFor(draft: ValidateJsonOutput['draft']): Ajv {
  const options = { allErrors: true, strict: false, validateFormats: true, logger: false as const, coerceTypes: false, useDefaults: false } as const;
  const ajv = draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

function violation(error: ErrorObject): JsonSchemaViolation {
  return { pointer: error.instancePath, message: error.message ?? error.keyword, keyword: error.keyword, schema_path: error.schemaPath };
}

/**
 * Validate a document against a schema.
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError for missing or doubled inputs, invalid JSON, an unsupported
 *   `$schema`, an invalid schema, or a `$ref` that does not resolve inside the schema.
 */
export async function validateJson(workspace: Workspace, args: ValidateJsonInput): Promise<ValidateJsonOutput> {
  if (args.schema !== undefined && args.schema_filepath !== undefined) throw new ToolExecutionError('give either schema or schema_filepath, not both.');
  let schema: unknown;
  if (args.schema_filepath !== undefined) {
    const file = await loadInput(workspace, args.schema_filepath, { value: undefined, name: 'schema' });
    schema = parseJson(file.text, args.schema_filepath);
  } else if (args.schema !== undefined) {
    schema = args.schema;
  } else {
    throw new ToolExecutionError('give the schema: schema (the JSON Schema object) or schema_filepath (a schema file in the workspace).');
  }
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    throw new ToolExecutionError('the schema must be a JSON object (or true/false); got ' + (Array.isArray(schema) ? 'an array' : JSON.stringify(schema)?.slice(0, 50)) + '.');
  }
  const input = await loadInput(workspace, args.filepath, { value: args.json, name: 'json' });
  const document = parseJson(input.text, input.label);
  const draft = draftOf(schema);
  let validate: ValidateFunction;
  try {
    validate = ajvFor(draft).compile(schema as object);
  } catch (error) {
    const e = error as Error & { missingRef?: string };
    if (e.missingRef !== undefined || /can't resolve reference/.test(e.message)) {
      throw new ToolExecutionError(`the schema's $ref ${JSON.stringify(e.missingRef ?? e.message)} does not resolve inside the schema; validate_json never fetches remote or file schemas. Copy the referenced definitions into the schema's $defs (or definitions) and refer to them as "#/$defs/name".`);
    }
    throw new ToolExecutionError(`the schema is not a valid JSON Schema (${draft}): ${e.message}`);
  }
  const valid = validate(document) === true;
  const errors = (validate.errors ?? []).map(violation);
  return { valid, draft, error_count: errors.length, errors: errors.slice(0, MAX_LISTED_VIOLATIONS), truncated: errors.length > MAX_LISTED_VIOLATIONS };
}
