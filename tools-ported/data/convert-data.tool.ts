import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { loadInput } from './data-source.js';
import { formatFromExtension, parseData, serializeData, type DataFormat } from './data-formats.js';

/** Arguments of convert_data. */
export interface ConvertDataInput {
  /**
   * The file to convert, relative to the workspace root (or absolute inside it); up to
   * 10 MiB of UTF-8. Give this or text.
   * @format workspace-path
   */
  filepath?: string;
  /**
   * The data itself, as text. Give this or filepath.
   * @maxLength 1000000
   */
  text?: string;
  /** Format of the input. Default: from filepath's extension (.json, .yaml/.yml, .toml, .csv, .xml); required with text. */
  from?: DataFormat;
  /** Format to convert to. */
  to: DataFormat;
}

/** Most characters of converted text convert_data returns; longer results go to a file with convert_data_to_file. */
export const MAX_CONVERTED_CHARS = 100_000;

/**
 * Convert data between JSON, YAML, TOML, CSV and XML and return the converted text (nothing
 * is written; use convert_data_to_file to save it). CSV reads as a list of objects keyed by
 * the header row; XML attributes become keys prefixed with "@_". Unsafe input is refused:
 * YAML custom tags and alias bombs, XML DOCTYPE and entity declarations. Results longer than
 * 100000 characters are refused here; write them with convert_data_to_file.
 */
@tool({ name: 'convert_data', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'data', tags: ['data', 'ported'], timeoutMs: 30_000, memoryMb: 512, maxOutputLength: MAX_CONVERTED_CHARS })
export class ConvertDataTool implements Tool<ConvertDataInput, string> {
  async run(args: ConvertDataInput, ctx: ToolContext): Promise<string> {
    const { text } = await convertData(ctx.workspace, args);
    if (text.length > MAX_CONVERTED_CHARS) {
      throw new ToolExecutionError(`the converted text is ${text.length} characters, more than the ${MAX_CONVERTED_CHARS} returned; write it to a file with convert_data_to_file instead.`);
    }
    return text;
  }
}

/** What {@link convertData} returns. */
export interface Converted {
  text: string;
  from: DataFormat;
  to: DataFormat;
  /** How the input is named in messages. */
  label: string;
}

/**
 * Read and convert (shared by convert_data and convert_data_to_file).
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError for missing input, an unknown input format, input that does not
 *   parse (with where), refused YAML or XML features, or data the target format cannot hold.
 */
export async function convertData(workspace: Workspace, args: Pick<ConvertDataInput, 'filepath' | 'text' | 'from' | 'to'>): Promise<Converted> {
  const input = await loadInput(workspace, args.filepath, { value: args.text, name: 'text' });
  const from = args.from ?? (args.filepath !== undefined ? formatFromExtension(args.filepath) : undefined);
  if (from === undefined) {
    throw new ToolExecutionError(`cannot tell the input format${args.filepath !== undefined ? ` from the name ${args.filepath}` : ' of inline text'}; pass from: "json", "yaml", "toml", "csv" or "xml".`);
  }
  const data = parseData(input.text, from, input.label);
  return { text: serializeData(data, args.to), from, to: args.to, label: input.label };
}
