/**
 * JSON Schema draft-07 to 2020-12, for exports whose readers assume 2020-12: MCP 2025-11-25
 * reads a tool schema without `$schema` as 2020-12, so `tools/list` sends 2020-12 schemas that
 * say so. Our generated schemas are draft-07 (typescript-json-schema); bridged servers' schemas
 * may be either. The conversion keeps what a schema accepts: the validator checks arguments
 * against the draft-07 original with ajv's draft-07 dialect, and a client checking them
 * against the converted schema with a 2020-12 validator accepts and refuses the same values.
 *
 * What changes (JSON Schema 2020-12 release notes, "Array keywords" and "$defs"):
 * - `items: [a, b]` (tuple) becomes `prefixItems: [a, b]`, and `additionalItems: s` becomes
 *   `items: s` (a lone `additionalItems` without tuple `items` has no effect and is dropped);
 * - `definitions` becomes `$defs`, and `$ref`s into `#/definitions/` point into `#/$defs/`;
 * - `dependencies` splits into `dependentRequired` (lists) and `dependentSchemas` (schemas);
 * - the root gets `"$schema": "https://json-schema.org/draft/2020-12/schema"`.
 *
 * A schema that already names 2020-12 (or 2019-09) in `$schema` is kept as it is.
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';

/** The `$schema` URI of JSON Schema 2020-12. */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = ['additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas'];

/**
 * `schema` as JSON Schema 2020-12 (a new object; the argument is not changed).
 * @param schema - a draft-07 (or draft-04/06) schema, or one without `$schema` written in the
 *   subset the drafts share; a schema naming 2019-09 or 2020-12 is returned with its keywords
 *   as they are.
 * @returns the converted schema with `$schema` set to {@link JSON_SCHEMA_2020_12} (or the
 *   schema's own, when it names 2019-09 or 2020-12).
 */
export function toJsonSchema2020(schema: JsonSchema): JsonSchema {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : undefined;
  if (declared !== undefined && /draft\/20(19-09|20-12)/.test(declared)) return schema;
  const { $schema: _drop, ...rest } = schema;
  return { $schema: JSON_SCHEMA_2020_12, ...(convert(rest) as JsonSchema) };
}

function convert(node: unknown): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const source = node as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'items') {
      if (Array.isArray(value)) {
        out.prefixItems = value.map(convert);
        if (source.additionalItems !== undefined) out.items = convert(source.additionalItems);
      } else {
        out.items = convert(value);
      }
    } else if (key === 'additionalItems') {
      // Handled with a tuple `items`; without one it has no effect.
    } else if (key === 'definitions') {
      out.$defs = { ...(out.$defs as JsonSchema | undefined), ...convertMap(value) };
    } else if (key === 'dependencies' && value !== null && typeof value === 'object') {
      for (const [name, dependency] of Object.entries(value as JsonSchema)) {
        const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
        out[target] = { ...(out[target] as JsonSchema | undefined), [name]: Array.isArray(dependency) ? dependency : convert(dependency) };
      }
    } else if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/definitions\//, '#/$defs/');
    } else if (SCHEMA_KEYWORDS.includes(key)) {
      out[key] = convert(value);
    } else if (SCHEMA_LIST_KEYWORDS.includes(key) && Array.isArray(value)) {
      out[key] = value.map(convert);
    } else if (SCHEMA_MAP_KEYWORDS.includes(key)) {
      const target = key === 'definitions' ? '$defs' : key;
      out[target] = { ...(out[target] as JsonSchema | undefined), ...convertMap(value) };
    } else {
      out[key] = value;
    }
  }
  return out;
}

function convertMap(value: unknown): JsonSchema {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: JsonSchema = {};
  for (const [name, sub] of Object.entries(value as JsonSchema)) out[name] = convert(sub);
  return out;
}
