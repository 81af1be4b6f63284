/**
 * Parsing and writing JSON, YAML, TOML, CSV and XML through well-kept libraries, with the
 * dangerous features of each format bounded:
 * - YAML (`yaml`, YAML 1.2 core schema): at most 100 alias expansions (the "billion laughs"
 *   bomb of anchors and aliases is refused), no custom or language tags (`!!js/function`,
 *   `!custom` are refused, never run or kept), duplicate keys refused, one document per input;
 * - XML (`fast-xml-parser`): any `<!DOCTYPE` is refused before parsing, so no entity can be
 *   declared or expanded (XXE and entity bombs); the five predefined entities still decode;
 * - TOML (`smol-toml`, TOML 1.0), CSV (`csv-parse` / `csv-stringify`, RFC 4180) and JSON have
 *   no expansion features; their sizes are bounded by the callers.
 *
 * Keys such as `__proto__` stay plain own properties in every format (the libraries define
 * them, they never assign through the prototype).
 *
 * @module
 */
import { parse as parseCsvSync } from 'csv-parse/sync';
import { stringify as stringifyCsvSync } from 'csv-stringify/sync';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import YAML from 'yaml';
import { ToolExecutionError } from '../../src/tool.js';

/** Formats convert_data reads and writes. */
export type DataFormat = 'json' | 'yaml' | 'toml' | 'csv' | 'xml';

/** Most alias expansions a YAML document may make. */
const MAX_YAML_ALIASES = 100;

/** The prefix XML attributes get as keys (`<a id="1"/>` is `{"a": {"@_id": "1"}}`). */
const XML_ATTRIBUTE_PREFIX = '@_';

/** The format named by a file extension, if any. */
export function formatFromExtension(name: string): DataFormat | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'yaml' || ext === 'yml') return 'yaml';
  if (ext === 'toml') return 'toml';
  if (ext === 'csv') return 'csv';
  if (ext === 'xml') return 'xml';
  return undefined;
}

/**
 * Parse JSON text, with a message that gives the line and column of a syntax error.
 * @throws ToolExecutionError for invalid JSON.
 */
export function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    let where = '';
    if (position) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split('\n').length;
      where = ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
    }
    throw new ToolExecutionError(`${label} is not valid JSON${where} (${message}).`);
  }
}

/**
 * Parse text in `format` into plain data (objects, arrays, strings, numbers, booleans, null;
 * TOML dates become ISO strings, CSV gives an array of objects keyed by the header row).
 * @throws ToolExecutionError describing the first problem and where it is.
 */
export function parseData(text: string, format: DataFormat, label: string): unknown {
  switch (format) {
    case 'json':
      return parseJson(text, label);
    case 'yaml':
      return parseYaml(text, label);
    case 'toml':
      try {
        return JSON.parse(JSON.stringify(parseToml(text)));
      } catch (error) {
        throw new ToolExecutionError(`${label} is not valid TOML (${firstLine((error as Error).message)}).`);
      }
    case 'csv':
      return parseCsv(text, label);
    case 'xml':
      return parseXml(text, label);
  }
}

function firstLine(message: string): string {
  return message.split('\n').slice(0, 3).join(' ').trim();
}

function parseYaml(text: string, label: string): unknown {
  let doc: YAML.Document.Parsed;
  try {
    doc = YAML.parseDocument(text, { schema: 'core', strict: true, uniqueKeys: true, prettyErrors: true, customTags: [] });
  } catch (error) {
    throw new ToolExecutionError(`${label} is not valid YAML (${firstLine((error as Error).message)}).`);
  }
  const problem = doc.errors[0];
  if (problem !== undefined) throw new ToolExecutionError(`${label} is not valid YAML (${firstLine(problem.message)}).`);
  const tag = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (tag !== undefined) throw new ToolExecutionError(`${label} uses a custom YAML tag, which is refused (only plain YAML 1.2 data is read): ${firstLine(tag.message)}.`);
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    throw new ToolExecutionError(`${label} is refused: ${(error as Error).message} (more than ${MAX_YAML_ALIASES} alias expansions).`);
  }
}

function parseCsv(text: string, label: string): Record<string, string>[] {
  try {
    return parseCsvSync(text, { columns: true, bom: true, skip_empty_lines: true, relax_quotes: false }) as Record<string, string>[];
  } catch (error) {
    throw new ToolExecutionError(`${label} is not valid CSV (${firstLine((error as Error).message)}).`);
  }
}

function parseXml(text: string, label: string): unknown {
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new ToolExecutionError(`${label} has a DOCTYPE or ENTITY declaration, which is refused (entity expansion can read files or explode in size); remove the DOCTYPE and try again.`);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ToolExecutionError(`${label} is not valid XML at line ${valid.err.line}, column ${valid.err.col} (${valid.err.msg}).`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: XML_ATTRIBUTE_PREFIX,
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    processEntities: { enabled: true, maxEntityCount: 0, maxTotalExpansions: 1, maxExpandedLength: 1 },
    htmlEntities: false,
  });
  try {
    return parser.parse(text);
  } catch (error) {
    throw new ToolExecutionError(`${label} is not valid XML (${firstLine((error as Error).message)}).`);
  }
}

/**
 * Write plain data as text in `format`.
 * @throws ToolExecutionError when the data cannot be written in that format (TOML needs a
 *   table at the top; CSV needs a list of flat objects or arrays).
 */
export function serializeData(value: unknown, format: DataFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(value, null, 2)}\n`;
    case 'yaml':
      return YAML.stringify(value, { aliasDuplicateObjects: false });
    case 'toml':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ToolExecutionError('TOML needs a table (an object) at the top level; this data is a list or a single value. Choose JSON or YAML instead.');
      // TOML has no null; the library would drop such keys silently.
      if (holdsNull(value)) throw new ToolExecutionError('the data cannot be written as TOML: it holds null values, and TOML has no null. Remove them or choose JSON or YAML instead.');
      try {
        return `${stringifyToml(value as Record<string, unknown>)}\n`;
      } catch (error) {
        throw new ToolExecutionError(`the data cannot be written as TOML (${(error as Error).message}); TOML has no null, for example. Choose JSON or YAML instead.`);
      }
    case 'csv':
      return toCsv(value);
    case 'xml':
      return toXml(value);
  }
}

function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  return Object.values(value as object).some(holdsNull);
}

function toCsv(value: unknown): string {
  const rows = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? [value] : undefined;
  if (rows === undefined) throw new ToolExecutionError('CSV needs a list of rows (objects or arrays); this data is a single value.');
  if (rows.every((r) => Array.isArray(r))) return stringifyCsvSync(rows.map((r: unknown[]) => r.map(cell)));
  if (!rows.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) throw new ToolExecutionError('CSV needs every row to be an object (or every row an array); this list mixes them or holds single values.');
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows as Record<string, unknown>[]) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  const records = (rows as Record<string, unknown>[]).map((row) => columns.map((c) => (Object.hasOwn(row, c) ? cell(row[c]) : '')));
  return stringifyCsvSync([columns, ...records]);
}

/** A CSV cell: scalars as text, nested data as JSON. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function toXml(value: unknown): string {
  const single = value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && !Object.keys(value)[0]!.startsWith(XML_ATTRIBUTE_PREFIX);
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: XML_ATTRIBUTE_PREFIX, format: true, suppressEmptyNode: true, processEntities: true });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(single ? value : { root: value }) as string}`;
}
