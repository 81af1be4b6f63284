import { tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { resolveWritable, statInside } from '../common/fs-inside.js';
import { convertData } from './convert-data.tool.js';
import { formatFromExtension, type DataFormat } from './data-formats.js';

/** Arguments of convert_data_to_file. */
export interface ConvertDataToFileInput {
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
  /** Format to convert to. Default: from destination's extension. */
  to?: DataFormat;
  /**
   * The file to write (the full name). Missing parent folders are created.
   * @format workspace-path
   */
  destination: string;
  /**
   * Replace the destination when it exists. Without it an existing destination is refused.
   * @default false
   */
  overwrite?: boolean;
}

/**
 * Convert data between JSON, YAML, TOML, CSV and XML (as convert_data does) and write the
 * result to a file of the workspace, atomically (a temporary file renamed into place). An
 * existing destination is refused unless overwrite is true. A separate tool from
 * convert_data because writing needs the user's confirmation and is not allowed in read-only
 * modes, while converting to text is.
 */
@tool({ name: 'convert_data_to_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'data', tags: ['data', 'ported'], timeoutMs: 60_000, memoryMb: 512 })
export class ConvertDataToFileTool implements Tool<ConvertDataToFileInput, string> {
  run(args: ConvertDataToFileInput, ctx: ToolContext): Promise<string> {
    return convertDataToFile(ctx.workspace, args);
  }
}

/**
 * Convert and write.
 * @throws PathTraversalError when the input or the destination is outside the workspace.
 * @throws ToolExecutionError for the errors of convert_data, an unknown target format, a
 *   destination that is a folder, or an existing destination without overwrite.
 */
export async function convertDataToFile(workspace: Workspace, args: ConvertDataToFileInput): Promise<string> {
  const to = args.to ?? formatFromExtension(args.destination);
  if (to === undefined) throw new ToolExecutionError(`cannot tell the output format from ${args.destination}; pass to: "json", "yaml", "toml", "csv" or "xml". Nothing was written.`);
  const real = resolveWritable(workspace, args.destination);
  const existing = await statInside(workspace, real, args.destination);
  if (existing?.kind === 'folder') throw new ToolExecutionError(`${args.destination} is a folder; give the full name of the file to write. Nothing was written.`);
  if (existing !== undefined && args.overwrite !== true) throw new ToolExecutionError(`${args.destination} already exists; pass overwrite: true to replace it, or choose another name. Nothing was written.`);
  const converted = await convertData(workspace, { filepath: args.filepath, text: args.text, from: args.from, to });
  const written = await writeFileInside(workspace, args.destination, converted.text);
  return `Converted ${converted.label} from ${converted.from} to ${to} and wrote ${workspace.relative(written.path)} (${written.bytes} bytes)${written.overwrote ? ' (overwrote an existing file)' : ''}.`;
}
