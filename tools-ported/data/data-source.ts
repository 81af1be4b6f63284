/**
 * Where a data tool's input comes from: a workspace file (`filepath`) or text given inline,
 * exactly one of the two, with sizes bounded. Plain functions, no side effects at import.
 *
 * @module
 */
import { readFileInside, ToolExecutionError, type Workspace } from '../../src/tool.js';

/** Largest input file a data tool reads, in bytes (10 MiB). */
const MAX_DATA_FILE_BYTES = 10 * 1024 * 1024;
/** Most characters of inline input (the schemas say the same with `@maxLength`). */
const MAX_INLINE_CHARS = 1_000_000;

/** What {@link loadInput} returns. */
export interface LoadedInput {
  /** The text (a leading byte order mark removed). */
  text: string;
  /** How to name the input in messages: the path as given, or "the inline text". */
  label: string;
  /** The file's path relative to the workspace root, when the input is a file. */
  filepath?: string;
}

/**
 * Read the input of a data tool.
 * @param filepath - the `filepath` argument, if given.
 * @param inline - the inline text argument, if given, and its argument name (for messages).
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError when both or neither are given, the file is missing, too large
 *   or not UTF-8 text.
 */
export async function loadInput(workspace: Workspace, filepath: string | undefined, inline: { value: string | undefined; name: string }): Promise<LoadedInput> {
  if (filepath !== undefined && inline.value !== undefined) throw new ToolExecutionError(`give either filepath or ${inline.name}, not both.`);
  if (filepath === undefined) {
    if (inline.value === undefined) throw new ToolExecutionError(`give the input: filepath (a file in the workspace) or ${inline.name} (the text itself).`);
    if (inline.value.length > MAX_INLINE_CHARS) throw new ToolExecutionError(`${inline.name} is ${inline.value.length} characters; at most ${MAX_INLINE_CHARS} are accepted inline. Save it to a file and pass filepath.`);
    return { text: inline.value.replace(/^\uFEFF/, ''), label: `the ${inline.name} text` };
  }
  const real = workspace.resolve(filepath);
  const { bytes, size } = await readFileInside(workspace, filepath, MAX_DATA_FILE_BYTES + 1);
  if (size > MAX_DATA_FILE_BYTES) throw new ToolExecutionError(`${filepath} is ${size} bytes; data files up to ${MAX_DATA_FILE_BYTES} bytes are read.`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ToolExecutionError(`${filepath} is not UTF-8 text; data tools read UTF-8 files only.`);
  }
  return { text: text.replace(/^\uFEFF/, ''), label: filepath, filepath: workspace.relative(real) };
}
