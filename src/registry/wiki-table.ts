/**
 * The wiki's tool table, made from a live registry: one row per registered tool version, then
 * a section per tool version with its arguments, drawn from the input schema. Written between
 * `<!-- AUTO:name -->` and `<!-- /AUTO:name -->` markers, so text around them is kept.
 *
 * @module
 */
import { SHELL_COMMAND_FORMAT, WORKSPACE_PATH_FORMAT, WORKSPACE_PATH_OR_URL_FORMAT } from '../schema/validator.js';
import type { JsonSchema } from '../types/tool.js';
import type { RegisteredTool } from './registered-tool.js';
import type { ToolRegistry } from './registry.js';

/** A Markdown table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();
}

/** The first sentence of a description (up to the first ". " or the end), for the overview. */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

/** The category of a tool: `builtin`, or its first tag other than `ported`. */
export function categoryOf(tool: RegisteredTool): string {
  if (tool.tags.includes('builtin')) return 'builtin';
  return tool.tags.find((tag) => tag !== 'ported') ?? '';
}

/** A JSON Schema type, shortly: `string`, `integer`, `string[]`, `"a" \| "b"`, `object`. */
function typeOf(schema: JsonSchema | undefined): string {
  if (schema === undefined) return 'any';
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[keyword])) return (schema[keyword] as JsonSchema[]).map(typeOf).join(' | ');
  }
  const type = schema.type;
  if (type === 'array') return `${typeOf(schema.items as JsonSchema | undefined)}[]`;
  if (Array.isArray(type)) return type.join(' | ');
  return typeof type === 'string' ? type : 'any';
}

/** Milliseconds as the table shows them. */
function duration(ms: number): string {
  if (ms <= 0) return 'none';
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The argument table of one tool (name, type, required, default, description). */
export function argumentTable(tool: RegisteredTool): string {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) return 'No arguments.';
  const rows = names.map((name) => {
    const schema = properties[name]!;
    const format = schema.format === WORKSPACE_PATH_FORMAT ? ' (workspace path)' : schema.format === WORKSPACE_PATH_OR_URL_FORMAT ? ' (workspace path or URL)' : schema.format === SHELL_COMMAND_FORMAT ? ' (shell command)' : '';
    const fallback = 'default' in schema ? `\`${JSON.stringify(schema.default)}\`` : '';
    return `| \`${name}\` | ${cell(typeOf(schema))}${format} | ${required.has(name) ? 'yes' : 'no'} | ${cell(fallback)} | ${cell(String(schema.description ?? ''))} |`;
  });
  return ['| argument | type | required | default | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * The whole generated block for a registry: the overview table of every tool version, then a
 * section per tool version. Sorted by name, then version; deterministic for `--check`.
 */
export function renderToolsTable(registry: ToolRegistry): string {
  const tools = registry.list({ allVersions: true });
  const overview = tools.map(
    (tool) =>
      `| [\`${tool.name}\`](#${tool.name}-${tool.version.replace(/\./g, '')}) | ${tool.version} | ${categoryOf(tool)} | \`${tool.kind}\` | ${tool.readOnly ? 'yes' : 'no'} | ` +
      `${tool.requiresConfirmation ? 'yes' : 'no'} | ${duration(tool.timeoutMs)} | ${tool.rateLimitRpm === undefined ? '' : `${tool.rateLimitRpm}/min`} | ` +
      `${tool.memoryMb === undefined ? '' : `${tool.memoryMb} MB`} | ${cell(firstSentence(tool.description))} |`,
  );
  const sections = tools.map((tool) => `### ${tool.name} ${tool.version}\n\n${cell(tool.description)}\n\n${argumentTable(tool)}`);
  return [
    `${tools.length} tool versions.`,
    '',
    '| tool | version | category | kind | read-only | confirmation | timeout | rate limit | memory cap | description |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...overview,
    '',
    ...sections.flatMap((section) => [section, '']),
  ]
    .join('\n')
    .trimEnd();
}

/**
 * Replace what stands between `<!-- AUTO:name -->` and `<!-- /AUTO:name -->` in `text`.
 * @throws Error when the markers are missing or out of order.
 */
export function replaceBetweenMarkers(text: string, name: string, content: string): string {
  const open = `<!-- AUTO:${name} -->`;
  const close = `<!-- /AUTO:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end === -1 || end < start) throw new Error(`the markers ${open} and ${close} are missing or out of order`);
  return `${text.slice(0, start + open.length)}\n${content}\n${text.slice(end)}`;
}
