/**
 * Reading and writing text files for the edit tools: through the workspace's safe I/O
 * (`readFileInside` / `writeFileInside`: no link followed outside, atomic writes, a read-only
 * mode's scoped folders enforced at the moment of writing), decoded and encoded with the
 * file's own encoding (see `text-codec.ts`). Plain functions, no side effects at import.
 *
 * @module
 */
import { readFileInside, ToolExecutionError, writeFileInside, type Workspace, type WriteInside } from '../../src/tool.js';
import { resolveWritable } from './fs-inside.js';
import { decodeText, DEFAULT_TEXT_FORMAT, describeFormat, encodeText, MAX_EDIT_BYTES, type TextFormat } from './text-codec.js';

/** A text file as loaded for an edit. */
export interface LoadedText {
  /** Real path of the file. */
  real: string;
  /** Workspace-relative path, for messages. */
  shown: string;
  /** The decoded text, line endings as they are in the file. */
  text: string;
  format: TextFormat;
}

/**
 * Load a text file to edit. Checks first that it may be written (a read-only mode's scoped
 * folders), so a call that could not write fails before any work.
 * @throws ToolExecutionError for missing, binary, unsupported or too large files.
 * @throws PathTraversalError for paths outside the workspace.
 */
export async function loadTextForEdit(workspace: Workspace, filepath: string): Promise<LoadedText> {
  const real = resolveWritable(workspace, filepath);
  const { bytes, size } = await readFileInside(workspace, filepath, MAX_EDIT_BYTES + 1);
  if (size > MAX_EDIT_BYTES) {
    throw new ToolExecutionError(`${filepath} is ${size} bytes; the edit tools change files up to ${MAX_EDIT_BYTES} bytes. It was not changed.`);
  }
  const { text, format } = decodeText(bytes, filepath);
  return { real, shown: workspace.relative(real), text, format };
}

/** Write `text` back in `format` atomically. */
export function saveText(workspace: Workspace, filepath: string, text: string, format: TextFormat): Promise<WriteInside> {
  return writeFileInside(workspace, filepath, encodeText(text, format));
}

/** "1 line" / "3 lines", and friends. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A note on the kept format, when it is not plain UTF-8 with LF: " (kept UTF-16 LE with BOM, CRLF)". */
export function formatNote(format: TextFormat): string {
  return format.encoding === DEFAULT_TEXT_FORMAT.encoding && format.eol === DEFAULT_TEXT_FORMAT.eol ? '' : ` (kept ${describeFormat(format)})`;
}
