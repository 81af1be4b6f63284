import path from 'node:path';
import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { PathTraversalError, tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { deleteFileInside, resolveWritable, statInside } from '../common/fs-inside.js';
import { splitLines } from '../common/lines.js';
import { describeCandidates, nearestCandidates } from '../common/nearest.js';
import { encodeText, type TextFormat } from '../common/text-codec.js';
import { loadTextForEdit, plural } from '../common/text-file.js';

/** Arguments of apply_diff. */
export interface ApplyDiffInput {
  /**
   * A unified diff (as `diff -u` or `git diff` print it): for each file a `--- a/path` and a
   * `+++ b/path` line, then its hunks. Paths are relative to the workspace root; `/dev/null`
   * on the `---` line creates a file, on the `+++` line deletes one.
   */
  diff: string;
  /**
   * Every file the diff creates, changes, deletes or renames (both names of a rename), as
   * paths relative to the workspace root without the a/ and b/ prefixes. They must be exactly
   * the files the diff names: the list is what the confirmation shows and what read-only
   * modes check.
   * @minItems 1
   * @items.type string
   * @items.format workspace-path
   */
  filepaths: string[];
}

/** What happens to one file. */
type Action = 'modify' | 'create' | 'delete' | 'rename' | 'copy';

/** One file section of the diff, checked and applied in memory. */
interface FilePlan {
  action: Action;
  /** The file read (absent for a creation). */
  from?: { given: string; real: string };
  /** The file written (absent for a deletion). */
  to?: { given: string; real: string };
  patch: StructuredPatch;
  /** Content and format of `from` as read. */
  original?: { text: string; format: TextFormat };
  /** The text to write to `to`. */
  result?: string;
}

/** Largest diff accepted, in characters (8 MiB). */
const MAX_DIFF_CHARS = 8 * 1024 * 1024;

/**
 * Apply a unified diff to one or more files in the workspace, all or nothing: the whole diff
 * is parsed and every path checked, and every hunk applied in memory, before anything is
 * written; a hunk that does not fit changes nothing and the error shows the nearest lines.
 * Hunks may sit at other line numbers than their headers say, but their context and removed
 * lines must match exactly. Keeps each file's encoding and line endings. Supports creating,
 * deleting and (git diffs) renaming files; binary patches and mode changes are not applied.
 * For one small change, replace_in_file is simpler.
 */
@tool({ name: 'apply_diff', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 60_000 })
export class ApplyDiffTool implements Tool<ApplyDiffInput, string> {
  run(args: ApplyDiffInput, ctx: ToolContext): Promise<string> {
    return applyDiff(ctx.workspace, args);
  }
}

const DEV_NULL = '/dev/null';

/**
 * The workspace paths a file section names, its a/ and b/ prefixes removed when the section
 * uses them (git's convention: old names under a/, new names under b/).
 */
export function sectionPaths(patch: Pick<StructuredPatch, 'oldFileName' | 'newFileName'>): { oldPath?: string; newPath?: string } {
  const oldName = patch.oldFileName;
  const newName = patch.newFileName;
  const prefixed = (name: string | undefined, prefix: string) => name === undefined || name === DEV_NULL || name.startsWith(prefix);
  const strip = prefixed(oldName, 'a/') && prefixed(newName, 'b/') && (oldName !== DEV_NULL || newName !== DEV_NULL);
  const clean = (name: string | undefined, prefix: string) => {
    if (name === undefined || name === DEV_NULL) return undefined;
    return strip ? name.slice(prefix.length) : name;
  };
  return { oldPath: clean(oldName, 'a/'), newPath: clean(newName, 'b/') };
}

/**
 * Check a path named in the diff and resolve it (case P6: a header that climbs out, such as
 * `a/../../tmp/evil`, or an absolute path, rejects the whole diff).
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError for an absolute path inside it, or the workspace root itself.
 */
function checkDiffPath(workspace: Workspace, given: string): { given: string; real: string } {
  if (given.trim() === '') throw new ToolExecutionError('a file header of the diff names no file; nothing was changed.');
  if (path.isAbsolute(given) || /^[A-Za-z]:[\\/]/.test(given)) {
    // Outside: the security error. Inside: still refused, diff headers are relative.
    workspace.resolve(given);
    throw new ToolExecutionError(`the diff names the absolute path ${JSON.stringify(given)}; diff headers must use paths relative to the workspace root. Nothing was changed.`);
  }
  return { given, real: resolveWritable(workspace, given) };
}

/** Plan every file section: actions and resolved paths. Nothing is read yet. */
function planSections(workspace: Workspace, patches: StructuredPatch[]): FilePlan[] {
  const plans: FilePlan[] = [];
  for (const patch of patches) {
    if (patch.oldFileName === undefined && patch.newFileName === undefined && patch.hunks.length === 0) continue; // prose around the diff
    if (patch.oldFileName === undefined || patch.newFileName === undefined) {
      throw new ToolExecutionError('every file section of the diff needs a "--- a/path" and a "+++ b/path" line before its hunks; nothing was changed.');
    }
    const { oldPath, newPath } = sectionPaths(patch);
    // Check every path before judging anything else about the section.
    const from = oldPath === undefined ? undefined : checkDiffPath(workspace, oldPath);
    const to = newPath === undefined ? undefined : checkDiffPath(workspace, newPath);
    if (patch.isBinary) throw new ToolExecutionError(`the diff holds a binary patch for ${newPath ?? oldPath}; apply_diff applies text hunks only. Nothing was changed.`);
    let action: Action;
    if (from === undefined && to === undefined) throw new ToolExecutionError('a file section of the diff names /dev/null on both sides; nothing was changed.');
    else if (from === undefined) action = 'create';
    else if (to === undefined) action = 'delete';
    else if (from.real === to.real) action = patch.isCreate ? 'create' : patch.isDelete ? 'delete' : 'modify';
    else if (patch.isRename) action = 'rename';
    else if (patch.isCopy) action = 'copy';
    else {
      throw new ToolExecutionError(
        `a file section of the diff names two different files (--- ${oldPath}, +++ ${newPath}); apply_diff patches a file in place, so use the same path on both lines (or a git diff with "rename from"/"rename to"). Nothing was changed.`,
      );
    }
    plans.push({ action, from: action === 'create' ? undefined : from, to: action === 'delete' ? undefined : to, patch });
  }
  if (plans.length === 0) throw new ToolExecutionError('the diff holds no file sections ("--- a/path", "+++ b/path", then "@@ ... @@" hunks); nothing was changed.');
  if (plans.every((p) => p.patch.hunks.length === 0 && p.action !== 'rename' && p.action !== 'copy')) {
    throw new ToolExecutionError('the diff holds no hunks ("@@ -l,n +l,n @@" followed by lines); nothing was changed.');
  }
  return plans;
}

/** Each file may appear in one section only, and the files must be those of `filepaths`. */
function checkTargets(workspace: Workspace, plans: FilePlan[], filepaths: readonly string[]): void {
  const named = new Map<string, string>();
  for (const plan of plans) {
    const files = new Map<string, string>();
    for (const p of [plan.from, plan.to]) if (p !== undefined) files.set(p.real, p.given);
    for (const [real, given] of files) {
      if (named.has(real)) throw new ToolExecutionError(`the diff changes ${workspace.relative(real)} in more than one file section; merge them into one. Nothing was changed.`);
      named.set(real, given);
    }
  }
  const listed = new Map<string, string>();
  for (const given of filepaths) listed.set(workspace.resolve(given), given);
  const unlisted = [...named.keys()].filter((real) => !listed.has(real)).map((real) => workspace.relative(real));
  const untouched = [...listed.keys()].filter((real) => !named.has(real)).map((real) => workspace.relative(real));
  if (unlisted.length || untouched.length) {
    const problems = [
      unlisted.length ? `the diff changes ${unlisted.join(', ')}, not listed in filepaths` : '',
      untouched.length ? `filepaths lists ${untouched.join(', ')}, which the diff does not change` : '',
    ].filter(Boolean);
    throw new ToolExecutionError(
      `filepaths must list exactly the files the diff changes: ${problems.join('; ')}. Pass filepaths: ${JSON.stringify([...named.keys()].map((real) => workspace.relative(real)))}. Nothing was changed.`,
    );
  }
}

/** The old side of a hunk (context and removed lines), to search for when it does not fit. */
function oldSide(hunk: StructuredPatchHunk): string {
  return hunk.lines.filter((l) => l[0] === ' ' || l[0] === '-').map((l) => l.slice(1)).join('\n');
}

/** Apply one section's hunks to `text`, keeping its line endings. */
function applySection(text: string, patch: StructuredPatch): string | false {
  const first = applyPatch(text, patch, { autoConvertLineEndings: true });
  if (first !== false || !text.includes('\r')) return first;
  // Mixed line endings: compare lines without their CR, and give added lines the file's dominant ending.
  const crlf = splitLines(text).endings.filter((e) => e === '\r\n').length * 2 >= splitLines(text).endings.filter((e) => e !== '').length;
  const adapt = (line: string) => (line[0] === '\\' || !crlf || line.endsWith('\r') ? line : `${line}\r`);
  const adapted = { ...patch, hunks: patch.hunks.map((h) => ({ ...h, lines: h.lines.map(adapt) })) };
  return applyPatch(text, adapted, {
    autoConvertLineEndings: false,
    compareLine: (_n, line, _op, content) => line === content || line.replace(/\r$/, '') === content.replace(/\r$/, ''),
  });
}

/** Find the first hunk of `patch` that does not fit `text`, and describe it with the nearest lines. */
function explainFailure(shown: string, text: string, patch: StructuredPatch): string {
  let failing = patch.hunks.length - 1;
  for (let i = 0; i < patch.hunks.length; i++) {
    if (applySection(text, { ...patch, hunks: patch.hunks.slice(0, i + 1) }) === false) {
      failing = i;
      break;
    }
  }
  const hunk = patch.hunks[failing]!;
  const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
  const lines = splitLines(text).lines;
  const wanted = oldSide(hunk);
  const nearest = wanted === '' ? '' : ` ${describeCandidates(lines, nearestCandidates(lines, wanted), wanted)}`;
  return `hunk ${failing + 1} of ${patch.hunks.length} for ${shown} (${header}) does not match the file: its context and removed lines must appear in it exactly.${nearest}`;
}

/**
 * Apply a unified diff, all or nothing.
 * @throws PathTraversalError when any path in the diff leaves the workspace (nothing changed).
 * @throws ToolExecutionError when the diff does not parse, names files other than
 *   `filepaths`, or a hunk does not fit (nothing changed); or when a write fails midway
 *   (files already written are put back, and the message says so).
 */
export async function applyDiff(workspace: Workspace, args: ApplyDiffInput): Promise<string> {
  if (args.diff.length > MAX_DIFF_CHARS) throw new ToolExecutionError(`the diff is ${args.diff.length} characters; apply_diff takes up to ${MAX_DIFF_CHARS}. Split it.`);
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(args.diff);
  } catch (error) {
    throw new ToolExecutionError(`the diff does not parse: ${(error as Error).message}. Check that each hunk's line counts match its lines (every line starts with " ", "-" or "+"). Nothing was changed.`);
  }
  // 1. Every path, before anything else.
  const plans = planSections(workspace, patches);
  checkTargets(workspace, plans, args.filepaths);
  // 2. Read every file and apply every hunk in memory.
  for (const plan of plans) {
    if (plan.action === 'create') {
      const existing = await statInside(workspace, plan.to!.real, plan.to!.given);
      if (existing !== undefined) throw new ToolExecutionError(`the diff creates ${plan.to!.given}, which already exists; nothing was changed.`);
      plan.original = { text: '', format: { encoding: 'utf-8', eol: '\n' } };
    } else {
      const loaded = await loadTextForEdit(workspace, plan.from!.given);
      plan.original = { text: loaded.text, format: loaded.format };
    }
    if ((plan.action === 'rename' || plan.action === 'copy') && (await statInside(workspace, plan.to!.real, plan.to!.given)) !== undefined) {
      throw new ToolExecutionError(`the diff ${plan.action === 'rename' ? 'renames' : 'copies'} a file to ${plan.to!.given}, which already exists; nothing was changed.`);
    }
    const shown = workspace.relative((plan.from ?? plan.to)!.real);
    const result = plan.patch.hunks.length === 0 ? plan.original.text : applySection(plan.original.text, plan.patch);
    if (result === false) throw new ToolExecutionError(`${explainFailure(shown, plan.original.text, plan.patch)}\nNothing was changed (no file of the diff was written).`);
    if (plan.action === 'delete' && result !== '') {
      throw new ToolExecutionError(`the diff deletes ${shown} but its hunks do not remove all of its content; nothing was changed.`);
    }
    plan.result = result;
  }
  // 3. Write: new contents first (each atomic), then removals; on a failure, put back what was written.
  const undo: Array<() => Promise<unknown>> = [];
  try {
    for (const plan of plans) {
      if (plan.to === undefined) continue;
      const before = plan.action === 'modify' ? encodeText(plan.original!.text, plan.original!.format) : undefined;
      await writeFileInside(workspace, plan.to.given, encodeText(plan.result!, plan.original!.format));
      undo.push(before === undefined ? () => deleteFileInside(workspace, plan.to!.given) : () => writeFileInside(workspace, plan.to!.given, before));
    }
    for (const plan of plans) {
      if (plan.action !== 'delete' && plan.action !== 'rename') continue;
      const before = encodeText(plan.original!.text, plan.original!.format);
      await deleteFileInside(workspace, plan.from!.given);
      undo.push(() => writeFileInside(workspace, plan.from!.given, before));
    }
  } catch (error) {
    const failed: string[] = [];
    for (const step of undo.reverse()) await step().catch(() => failed.push('?'));
    if (error instanceof PathTraversalError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolExecutionError(
      failed.length === 0
        ? `writing the diff failed (${message}); the files already written were put back, so nothing was changed.`
        : `writing the diff failed (${message}), and ${plural(failed.length, 'file')} could not be put back; check the files the diff names.`,
    );
  }
  return `Applied the diff to ${plural(plans.length, 'file')}:\n${plans.map((p) => describePlan(workspace, p)).join('\n')}`;
}

function describePlan(workspace: Workspace, plan: FilePlan): string {
  let added = 0;
  let removed = 0;
  for (const hunk of plan.patch.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === '+') added++;
      else if (line[0] === '-') removed++;
    }
  }
  const counts = `(+${added} -${removed})`;
  const from = plan.from && workspace.relative(plan.from.real);
  const to = plan.to && workspace.relative(plan.to.real);
  switch (plan.action) {
    case 'create':
      return `- created ${to} ${counts}`;
    case 'delete':
      return `- deleted ${from}`;
    case 'rename':
      return `- renamed ${from} to ${to} ${counts}`;
    case 'copy':
      return `- copied ${from} to ${to} ${counts}`;
    default:
      return `- modified ${to} ${counts}`;
  }
}
