import { search } from '@jmespath-community/jmespath';
import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { loadInput } from './data-source.js';
import { parseJson } from './data-formats.js';

/** Arguments of json_query. */
export interface JsonQueryInput {
  /**
   * A JSON file of the workspace, relative to the workspace root (or absolute inside it).
   * Give this or json.
   * @format workspace-path
   */
  filepath?: string;
  /**
   * The JSON document itself, as text. Give this or filepath.
   * @maxLength 1000000
   */
  json?: string;
  /**
   * A JMESPath expression (https://jmespath.org/specification.html, with the JMESPath
   * Community functions), e.g. `items[?price > \`10\`].name`, `length(users)`,
   * `sort_by(people, &age)[-1].name`.
   * @minLength 1
   * @maxLength 2000
   */
  query: string;
}

/**
 * Query a JSON document with JMESPath and get the result as pretty-printed JSON: pick fields,
 * filter arrays (`[?age > \`30\`]`), project (`items[].name`), count, sort, and reshape. The
 * document comes from a workspace file (up to 10 MiB) or inline text. Use it instead of
 * reading a large JSON file whole; a query that matches nothing gives `null`.
 */
@tool({ name: 'json_query', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'data', tags: ['data', 'ported'], timeoutMs: 30_000, memoryMb: 512, maxOutputLength: 20_000 })
export class JsonQueryTool implements Tool<JsonQueryInput, string> {
  async run(args: JsonQueryInput, ctx: ToolContext): Promise<string> {
    return jsonQuery(ctx.workspace, args);
  }
}

/**
 * Run a JMESPath query over a JSON document.
 * @returns the result as JSON text (two-space indentation).
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError for missing input, invalid JSON (with line and column), a
 *   syntax error in the query, or an unknown function or wrong argument type in it.
 */
export async function jsonQuery(workspace: Workspace, args: JsonQueryInput): Promise<string> {
  const input = await loadInput(workspace, args.filepath, { value: args.json, name: 'json' });
  const data = parseJson(input.text, input.label);
  if (typeof args.query !== 'string' || args.query.trim() === '') throw new ToolExecutionError('the query is empty; give a JMESPath expression such as "items[].name".');
  let result: unknown;
  try {
    result = search(data as Parameters<typeof search>[0], args.query);
  } catch (error) {
    const name = (error as Error)?.name ?? 'Error';
    const message = (error as Error)?.message ?? String(error);
    const kind = name === 'ParserError' || name === 'LexerError' ? 'has a syntax error' : 'failed';
    throw new ToolExecutionError(`the JMESPath query ${JSON.stringify(args.query.slice(0, 200))} ${kind}: ${message}. See https://jmespath.org/specification.html; literals go in backticks (\`10\`) and raw strings in single quotes ('text').`);
  }
  return JSON.stringify(result ?? null, null, 2);
}
