import path from 'node:path';
import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { CheckedFolders, IGNORED_FOLDERS, resolveFolder, shownName, type FolderEntry } from '../common/inspect-fs.js';

/** Arguments of tree. */
export interface TreeInput {
  /**
   * Folder to show, relative to the workspace root.
   * @format workspace-path
   * @default "."
   */
  directory?: string;
  /**
   * Levels of folders to open below `directory` (1: only its own entries).
   * @TJS-type integer
   * @minimum 1
   * @maximum 20
   * @default 3
   */
  max_depth?: number;
  /**
   * Most entries to show; the rest is counted per folder ("... 12 more entries").
   * @TJS-type integer
   * @minimum 1
   * @maximum 2000
   * @default 300
   */
  max_entries?: number;
  /**
   * Also open .git and node_modules folders (shown but not opened by default).
   * @default false
   */
  include_ignored?: boolean;
}

/** Names read from one folder at most; the rest of a huge folder is counted, not listed. */
const MAX_NAMES_PER_FOLDER = 10_000;

/**
 * Show the folders and files below a workspace folder as an indented tree, breadth first so
 * that every level gets its share when the tree is cut: at most max_depth levels and
 * max_entries entries, with a count of what was left out. Folders end with "/", symbolic
 * links show their target ("name -> target") and are never followed; .git and node_modules
 * are shown but not opened unless include_ignored is true. Use it to get the layout of a
 * project; use find_files to find files by name, list_files for sizes.
 */
@tool({ name: 'tree', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000 })
export class TreeTool implements Tool<TreeInput, string> {
  run(args: TreeInput, ctx: ToolContext): Promise<string> {
    return showTree(ctx.workspace, args.directory ?? '.', {
      maxDepth: args.max_depth ?? 3,
      maxEntries: args.max_entries ?? 300,
      includeIgnored: args.include_ignored ?? false,
      signal: ctx.signal,
    });
  }
}

/** A folder of the tree and what is shown of it. */
interface Node {
  absolute: string;
  depth: number;
  /** Entries shown, in name order; folders among them carry their node once opened. */
  shown: Array<FolderEntry & { node?: Node; target?: string; note?: string }>;
  /** Entries of the folder not shown (entry budget, or a folder too large to read whole). */
  omitted: number;
}

/**
 * Render the tree of the folder `directory`.
 * @throws ToolExecutionError when it is missing or not a folder.
 * @throws PathTraversalError when it is outside the workspace.
 */
export async function showTree(
  workspace: Workspace,
  directory: string,
  options: { maxDepth: number; maxEntries: number; includeIgnored: boolean; signal?: AbortSignal },
): Promise<string> {
  const { real } = await resolveFolder(workspace, directory, 'tree shows folders; use file_info or read_lines for a file.');
  const folders = new CheckedFolders(workspace, options.signal);
  const root: Node = { absolute: real, depth: 0, shown: [], omitted: 0 };
  let budget = options.maxEntries;
  let omittedByBudget = 0;
  let unopenedForDepth = 0;
  let ignoredShown = 0;
  const counts = { directory: 0, file: 0, link: 0, other: 0 };
  try {
    // Breadth first: each level is shown before the next one takes from the budget.
    let level: Node[] = [root];
    while (level.length > 0) {
      const next: Node[] = [];
      for (const node of level) {
        options.signal?.throwIfAborted();
        const listing = await folders.list(node.absolute, MAX_NAMES_PER_FOLDER);
        if (listing === undefined) {
          node.omitted = -1; // could not be opened (gone, or no longer inside)
          continue;
        }
        node.omitted = listing.total - listing.entries.length;
        omittedByBudget += node.omitted;
        for (const entry of listing.entries) {
          if (budget <= 0) {
            node.omitted++;
            omittedByBudget++;
            continue;
          }
          budget--;
          counts[entry.kind]++;
          const absolute = path.join(node.absolute, entry.name);
          const shown: Node['shown'][number] = { ...entry };
          if (entry.kind === 'link') {
            const found = await folders.lstat(node.absolute, entry.name);
            shown.target = found?.target ?? '?';
          } else if (entry.kind === 'directory') {
            if (!options.includeIgnored && IGNORED_FOLDERS.includes(entry.name)) {
              shown.note = '(not opened; include_ignored: true opens it)';
              ignoredShown++;
            } else if (node.depth + 1 >= options.maxDepth) {
              const inside = await folders.list(absolute, MAX_NAMES_PER_FOLDER);
              if (inside !== undefined && inside.total > 0) {
                shown.note = `(${inside.total} ${inside.total === 1 ? 'entry' : 'entries'} below max_depth)`;
                unopenedForDepth++;
              }
            } else {
              shown.node = { absolute, depth: node.depth + 1, shown: [], omitted: 0 };
              next.push(shown.node);
            }
          }
          node.shown.push(shown);
        }
      }
      level = next;
    }
  } finally {
    await folders.close();
  }

  const lines = [`${shownName(workspace.relative(real))}/`];
  const render = (node: Node, prefix: string) => {
    const items: Array<{ label: string; node?: Node }> = node.shown.map((e) => ({
      label:
        e.kind === 'directory' ? `${shownName(e.name)}/${e.note ? ` ${e.note}` : ''}`
        : e.kind === 'link' ? `${shownName(e.name)} -> ${shownName(e.target ?? '?')}`
        : e.kind === 'other' ? `${shownName(e.name)} (special file)`
        : shownName(e.name),
      node: e.node,
    }));
    if (node.omitted > 0) items.push({ label: `... ${node.omitted} more ${node.omitted === 1 ? 'entry' : 'entries'}` });
    if (node.omitted < 0) items.push({ label: '... (could not be opened)' });
    items.forEach((item, i) => {
      const lastItem = i === items.length - 1;
      lines.push(`${prefix}${lastItem ? '└── ' : '├── '}${item.label}`);
      if (item.node) render(item.node, `${prefix}${lastItem ? '    ' : '│   '}`);
    });
  };
  render(root, '');

  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const summary = [
    [plural(counts.directory, 'folder', 'folders'), plural(counts.file, 'file', 'files'), ...(counts.link ? [plural(counts.link, 'link', 'links')] : []), ...(counts.other ? [plural(counts.other, 'special file', 'special files')] : [])].join(', ') + ' shown',
  ];
  if (omittedByBudget > 0) summary.push(`${plural(omittedByBudget, 'entry', 'entries')} left out (max_entries ${options.maxEntries}; raise it or show a subfolder)`);
  if (unopenedForDepth > 0) summary.push(`${plural(unopenedForDepth, 'folder', 'folders')} not opened below max_depth ${options.maxDepth}`);
  if (ignoredShown > 0) summary.push(`${IGNORED_FOLDERS.join(' and ')} not opened`);
  lines.push('', `${summary.join('; ')}.`);
  return lines.join('\n');
}
