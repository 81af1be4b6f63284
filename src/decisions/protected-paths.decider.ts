/**
 * Protected-paths decider: a call of a writing tool whose paths reach into a protected folder
 * or file asks first, in every mode and whatever the scoped write folders; in a read-only mode
 * it is denied. Its questions go to a person (`Decision.person`): `--yes`, `confirm: true`,
 * an agent's `autoConfirmTools` and the `allow-all` approval mode answer none of them; with
 * nobody to ask the call is refused (`CONFIRMATION_REQUIRED`, naming the protected path). Protected: every `.git` (a repository's folder, or a worktree's `.git` file, at
 * any depth: git runs programs its `config` and `hooks/` name, so a `plans/.git/config`
 * written in plan mode would run a command at the next `git status` there), every
 * `.toolgate` (toolgate's own settings), the other names of `PROTECTED_NAMES` (`.hg`, `.jj`,
 * `.envrc`, `.husky`), a folder the write would give two of a git repository folder's entries
 * (`HEAD`, `config`, `objects`, `refs`, `commondir`, `gitdir`: a bare repository planted piece
 * by piece, or moved in whole), and the names or workspace-relative paths of the executor's
 * `protectedPaths` option.
 *
 * What a call reaches is `judged-paths.ts`'s answer: each path argument's real path and its
 * spelling, the other names of a hard-linked file, and for a tool that moves, copies or deletes what it is given (`scopedWrite`
 * tools) what a folder argument holds and where that lands (a move of a folder holding `.git`
 * asks; so does one whose result is a folder git would trust).
 *
 * toolgate's own files (`own-state-paths.ts`: the user's policy and config folder, the state
 * folder with the ledgers, an output store's folder) are out of reach of every tool call:
 * a writing tool or a command naming one is denied (`POLICY_DENIED`), a reading tool asks.
 *
 * A workspace that holds the user's home folder (the home folder itself, or a folder above
 * it) protects that folder's hidden entries too (`~/.bashrc`, `~/.profile`, `~/.gitconfig`,
 * `~/.config/git/config`, `~/.ssh/`, `~/.config/autostart/`): shells, git, ssh and desktops
 * run programs those name, outside every sandbox, the next time the person works.
 *
 * Names match in every spelling some file system takes for them, on every file system
 * (`namesProtected`: `.GIT`, `.git.`, `.git::$INDEX_ALLOCATION`, `GIT~1`, `.g\u200cit`; on
 * ext4 that protects a little more than needed; on a case-insensitive, NTFS, vfat or HFS+ one
 * each is `.git`).
 *
 * @module
 */
import path from 'node:path';
import fs from 'node:fs';
import { homeDotEntry, homesInside } from '../workspace/home-dotfiles.js';
import { judgedPaths } from '../workspace/judged-paths.js';
import { commandCoverage } from '../policy/shell/program-tables/coverage.js';
import { programTable } from '../policy/shell/program-tables/index.js';
import type { ShellCommand } from '../policy/shell/types.js';
import { lineReading, namesNotInWords, realOutside, shownText, type LineReading } from './command-word-paths.js';
import { unseenProgram } from './understood-programs.js';
import { gitDirShapeOf, namesProtected, PROTECTED_NAMES, type PathEntry } from '../workspace/protected-names.js';
import { isInside, spelledRelative } from '../workspace/workspace.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

const NAME = 'protected-paths';
/** The protected names, as messages list them. */
const PROTECTED_LIST = PROTECTED_NAMES.join(', ');

/**
 * Whether a command may write files: a redirect, a program the analysis cannot see
 * (`understood-programs.ts`), static words its program's table does not know
 * to only read (`program-tables/`), or a word computed when the line runs where the form has
 * options or operands that write or run programs (`sort "$o"` may be `sort -oFILE`; `cat "$f"`
 * only reads, whatever `$f` is).
 */
function mayWrite(command: ShellCommand): boolean {
  if (['cd', 'pushd', 'popd'].includes(command.program) && command.writes.length === 0) return false;
  if (command.writes.length > 0) return true;
  // a program whose code the analysis cannot see (`make`, `./run.sh`), with or without words
  if (unseenProgram(command)?.grantable === true) return true;
  const { dynamicWords, ...fixed } = command;
  if (!commandCoverage(fixed, { named: 0, matched: 0, namedWrapper: -1, allowOption: () => false }).covered) return true;
  if (dynamicWords === undefined || dynamicWords.length === 0) return false;
  const table = command.argv[0]?.includes('/') === true ? undefined : programTable(command.program);
  const form = table?.subcommands !== undefined ? (dynamicWords.includes(1) ? undefined : table.subcommands[command.argv[1] ?? '']) : table?.form;
  if (form === undefined || form.check !== undefined || form.noOptions === true) return form?.noOptions !== true;
  return (form.operands ?? 'any') !== 'any' || form.options.some((o) => o.effect !== undefined && o.effect !== 'read');
}

/** The protected-paths step of the pipeline. */
export class ProtectedPathsDecider implements Decider {
  readonly name = NAME;
  /** Protected path components (lower case). */
  private readonly names: ReadonlySet<string>;
  /** Protected workspace-relative paths (lower case, `/`-separated, no trailing slash). */
  private readonly prefixes: readonly string[];

  /**
   * @param extra - further protected entries: a plain name (`.env`) is protected wherever it
   *   appears; an entry with a `/` (`config/secrets`) is a path relative to the workspace root,
   *   protected with everything below it.
   * @param ownState - absolute paths of toolgate's own files and folders
   *   (`ownStatePaths()`), each with everything below it: no call writes there.
   * @param grantsProgram - whether an explicit allow rule of the user's policy file names the
   *   program of a command the analysis cannot see (`PolicyFilesDecider.grantsProgram`): the
   *   person's grant for what its code does; default none.
   */
  constructor(
    extra: readonly string[] = [],
    private readonly ownState: readonly string[] = [],
    private readonly grantsProgram: (call: PreparedCall, command: ShellCommand) => boolean = () => false,
  ) {
    const names = new Set(PROTECTED_NAMES);
    const prefixes: string[] = [];
    for (const entry of extra) {
      const clean = entry.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '').toLowerCase();
      if (clean === '') continue;
      if (clean.includes('/')) prefixes.push(clean);
      else names.add(clean);
    }
    this.names = names;
    this.prefixes = prefixes;
  }

  decide(call: PreparedCall): Decision | undefined {
    const reading = lineReading(call);
    if (this.ownState.length !== 0) {
      const own = this.ownStateReached(call, reading);
      if (own !== undefined) return own;
    }
    if (call.tool.readOnly) return undefined;
    if (call.commands.length !== 0) {
      const named = this.namedByCommands(call, reading);
      if (named !== undefined) return named;
    }
    if (call.paths.length === 0) return undefined;
    const root = call.workspace.realRoot;
    const judged = judgedPaths(call.paths, { workspace: call.workspace, contents: call.tool.scopedWrite });
    // Every path the call names counts toward the shape together with what is on disk: one
    // apply_diff creating HEAD, config, objects/x and refs/x plants a repository folder at once.
    const together = judged.paths.filter((p) => p.via === 'target' || p.via === 'spelled');
    const homes = homesInside(root);
    for (const p of judged.paths) {
      const named = this.protectedPart(p.relative);
      const shaped = named === undefined && (p.via === 'target' || p.via === 'spelled') ? gitDirShape(root, p.relative, p.isFile, together) : undefined;
      const dotted = named === undefined && shaped === undefined ? homeDotEntry(path.join(root, p.relative), homes) : undefined;
      if (dotted !== undefined) return this.refusal(call, `${JSON.stringify(p.given)} is inside ${JSON.stringify(dotted)}, a hidden file or folder of the user's home folder, where shells, git, ssh and desktops take settings that run programs (toolgate asks before such writes)`, dotted);
      const hit = named ?? shaped;
      if (hit === undefined) continue;
      const what = p.via === 'inside' ? `${JSON.stringify(p.given)} holds ${JSON.stringify(p.relative)}, which`
        : p.via === 'landing' ? `${JSON.stringify(p.given)} would receive ${JSON.stringify(p.relative)}, which`
        : p.via === 'alias' ? `${JSON.stringify(p.given)} is the same file (a hard link) as ${JSON.stringify(p.relative)}, which`
        : JSON.stringify(p.given);
      const why = shaped !== undefined
        ? `${JSON.stringify(p.given)} would make ${JSON.stringify(shaped)} look like a git repository folder (HEAD, config, objects, refs, commondir), whose config git runs programs from (toolgate asks before such writes)`
        : `${what} is inside ${JSON.stringify(hit)}, a protected path (toolgate asks before any write to ${PROTECTED_LIST} and the executor's protectedPaths)`;
      return this.refusal(call, why, hit);
    }
    const landing = judged.landingShapes[0];
    if (landing !== undefined) {
      return this.refusal(call, `the call would make ${JSON.stringify(landing)} look like a git repository folder (HEAD, config, objects, refs, commondir), whose config git runs programs from (toolgate asks before such moves and copies)`, landing);
    }
    if (judged.incomplete !== undefined) return this.refusal(call, `${judged.incomplete}, so it is put to the user`, 'too-large');
    return undefined;
  }

  /**
   * Ask, or in a read-only mode deny, naming `why`. A person answers (`person`): an approval
   * given in advance (`--yes`, `confirm: true`) does not, nor does `allow-all`.
   */
  private refusal(call: PreparedCall, why: string, rule: string): Decision {
    if (call.mode?.readOnly) return deny(NAME, 'MODE_DENIED', `${call.tool.name} is not allowed in ${call.mode.name} mode: ${why}.`, rule);
    return { verdict: 'ask', decider: NAME, reason: `${why}.`, rule, person: true };
  }

  /**
   * A path argument (its real path or its spelling) or a command word inside toolgate's own
   * files: a writing tool or a command is denied, a reading tool asks.
   */
  private ownStateReached(call: PreparedCall, reading: LineReading): Decision | undefined {
    const { workspace } = call;
    for (const { given, real } of call.paths) {
      const spelled = path.resolve(workspace.root, given);
      // A tool that moves, copies or deletes what it is given reaches what a folder holds.
      const own = this.ownStateOf(real) ?? this.ownStateOf(spelled) ?? (call.tool.scopedWrite && !call.tool.readOnly ? this.ownState.find((o) => isInside(real, o) || isInside(spelled, o)) : undefined);
      if (own === undefined) continue;
      const why = `${JSON.stringify(given)} is toolgate's own file or folder ${JSON.stringify(own)} (its policy, approvals, ledger or outputs), which no tool call may change`;
      if (call.tool.readOnly) return { verdict: 'ask', decider: NAME, reason: `${why}; reading it is put to the user.`, rule: 'own-state', person: true };
      return deny(NAME, 'POLICY_DENIED', `${why}. Change toolgate's settings with toolgate's own commands.`, 'own-state');
    }
    if (call.commands.length === 0) return undefined;
    const bases = reading.bases(() => {});
    for (const analysis of call.commands) {
      for (const command of analysis.commands) {
        for (const { word, targets } of reading.targets(command, bases, () => {})) {
          for (const candidate of targets) {
            // judged as written and where its links lead (`cfg/policy.toml` with `cfg` a link to the config folder)
            const own = this.ownStateOf(path.resolve(candidate)) ?? this.ownStateOf(realOutside(candidate));
            if (own === undefined) continue;
            return deny(NAME, 'POLICY_DENIED', `the command \`${shownText(command, 200)}\` names ${JSON.stringify(word)}, toolgate's own file or folder ${JSON.stringify(own)} (its policy, approvals, ledger or outputs), which no tool call may change. Change toolgate's settings with toolgate's own commands.`, 'own-state');
          }
        }
      }
    }
    return undefined;
  }

  /** The own-state path `absolute` is (or is inside), if any. */
  private ownStateOf(absolute: string): string | undefined {
    return this.ownState.find((own) => isInside(own, absolute));
  }

  /**
   * A shell command whose words or redirections name a protected path (`echo x >
   * .git/hooks/pre-commit`, `cp hook sub/.git/hooks/`, `tee .toolgate/policy.toml`): it may
   * write there, so it asks (under `allow-all` too). Reading commands that name one ask as
   * well: the analysis cannot tell a read from a write by the words alone. Each word is judged
   * as written and as every path it may name (`command-word-paths.ts`): links followed (`g/x`
   * with `g` a link to `.git`), globs expanded (`.gi?/x`), `~` expanded, and from every folder
   * the command may run in (`env -C g touch x`, `tar -C g ...`). A line that may write
   * (a redirect, or a command its table does not know to only read) and holds a word or a
   * folder the analysis cannot show (`cp x "$f"`, `cd "$d"`, `find -execdir`) asks too.
   */
  private namedByCommands(call: PreparedCall, reading: LineReading): Decision | undefined {
    const { workspace } = call;
    // a workspace holding the user's home folder: its hidden entries (shells, git, ssh and desktops run what they name)
    const homes = homesInside(workspace.realRoot);
    let unseen: string | undefined;
    const note = (why: string) => { unseen ??= why; };
    const bases = reading.bases(note);
    const unsandboxed = call.sandbox === undefined || call.sandbox.profile === 'none';
    for (const analysis of call.commands) {
      for (const command of analysis.commands) {
        const writing = mayWrite(command);
        // a word computed when the line runs may be any path, a protected one too
        const computed = command.writes.find((w) => /[$`]/.test(w)) ?? (writing ? command.dynamicWords?.map((i) => command.argv[i]!)[0] : undefined);
        if (computed !== undefined) note(`the word \`${computed.slice(0, 80)}\` of \`${shownText(command)}\` is computed when the line runs`);
        // Without a sandbox nothing but the words keeps a command off `.git`, `.toolgate` and
        // toolgate's own files (with one, they are read-only mounts): a program whose code the
        // analysis cannot see (`make`, `npm test`, `./run.sh`, `python3 -c`) or whose file names
        // come from elsewhere (`xargs rm`) may write any of them.
        if (unsandboxed && writing) {
          const hidden = namesNotInWords(command) ?? this.ungranted(call, command);
          if (hidden !== undefined) note(`${hidden}; with no sandbox, nothing keeps .git, .toolgate and toolgate's own files read-only`);
        }
        for (const { word, targets } of reading.targets(command, bases, note)) {
          // as written (`sub/../.git/x`), then every path it may name, links followed (`g/hooks/x` with `g` a link to `.git`)
          let hit = this.protectedPart(word.replace(/^(\.\/)+/, ''));
          let through: string | undefined;
          for (const target of hit === undefined ? targets : []) {
            // as spelled first: a home dotfile that is a link leading outside the workspace
            // (dotfiles kept elsewhere) is still that dotfile, whatever its real path is
            const spelled = path.resolve(target);
            hit = homes.length === 0 ? undefined : homeDotEntry(spelled, homes);
            if (hit !== undefined) break;
            let real: string;
            try {
              real = workspace.resolve(target);
            } catch {
              // leads outside the workspace: the sandbox's business, but a protected name as
              // spelled in the workspace is still that name (`.e*` for `.env` linking elsewhere)
              const relative = spelledRelative(workspace.root, workspace.realRoot, target);
              hit = relative === undefined ? undefined : this.protectedPart(relative);
              if (hit !== undefined) break;
              continue;
            }
            hit = this.protectedPart(workspace.relative(real)) ?? this.protectedPart(workspace.relative(spelled))
              ?? (homes.length === 0 ? undefined : homeDotEntry(real, homes));
            if (hit !== undefined) {
              through = workspace.relative(real);
              break;
            }
            // a write into a folder that is (or the write makes) a git repository folder under
            // another name (`git init --bare b`, then `printf ... > b/config`): git runs its config
            const relative = workspace.relative(real).split(path.sep).join('/');
            const shaped = writing ? gitDirShape(workspace.realRoot, relative, undefined, []) : undefined;
            if (shaped !== undefined) {
              return this.refusal(call, `the command \`${shownText(command, 200)}\` names ${JSON.stringify(word)}, which would write in ${JSON.stringify(shaped)}, a folder that looks like a git repository folder (HEAD, config, objects, refs, commondir), whose config and hooks git runs (toolgate asks before such writes)`, shaped);
            }
          }
          if (hit === undefined) continue;
          const named = through === undefined || through === word ? JSON.stringify(word) : `${JSON.stringify(word)} (${JSON.stringify(through)})`;
          return this.refusal(call, `the command \`${shownText(command, 200)}\` names ${named}, inside ${JSON.stringify(hit)}, a protected path (toolgate asks before any write to ${PROTECTED_LIST} and the executor's protectedPaths)`, hit);
        }
        const carried = unsandboxed ? this.carried(call, command, reading.targets(command, bases, note)) : undefined;
        if (carried !== undefined) return carried;
        // Without a sandbox nothing but the words keeps a command off the home folder's
        // dotfiles (with one, they are read-only mounts: src/sandbox/home-dotfile-mounts.ts),
        // and a word computed when the line runs (`$HOME/.bashrc`, `"$f"` of a `for` loop over
        // `.b*rc`) shows none: a person decides. A plain glob is judged above (its matches).
        const homeComputed = homes.length > 0 && unsandboxed ? computedWord(command) : undefined;
        if (homeComputed !== undefined) {
          const why = `the word \`${homeComputed.slice(0, 80)}\` of \`${shownText(command, 200)}\` is computed when the line runs, the workspace holds the home folder and no sandbox keeps its hidden files (\`~/.bashrc\`, \`~/.gitconfig\`, \`~/.ssh\`) read-only`;
          return this.refusal(call, why, '~/.*');
        }
      }
    }
    // a folder or a word the analysis does not show (`cd "$d"`, `find -execdir`, `cp x "$f"`): a protected path could be written there
    if (unseen !== undefined && call.commands.some((a) => a.commands.some((c) => mayWrite(c)))) {
      return this.refusal(call, `${unseen}, and the line may write files, which could land in a protected path`, 'unseen-path');
    }
    return undefined;
  }

  /**
   * A copy of folders (`cp -r`, `-R`, `-a`) or a move (`mv`) without a sandbox: what the
   * folders hold lands below the destination, where a `.git`, `.envrc` or `.toolgate` inside
   * them becomes a protected entry no word names (`cp -r stage/. .` with
   * `stage/.git/hooks/pre-commit` wrote `.git/hooks/pre-commit`). Judged as the file tools judge
   * copy_file and move_file (`judged-paths.ts`: where the entries land, and for a move what it
   * takes away); a walk cut short asks. `words` are the command's words with their targets.
   */
  private carried(call: PreparedCall, command: ShellCommand, words: readonly { word: string; targets: readonly string[] }[]): Decision | undefined {
    const move = command.program === 'mv';
    const copy = command.program === 'cp' && command.argv.slice(1).some((w) => /^--(recursive|archive)$/.test(w) || /^-[A-Za-z]*[rRa]/.test(w));
    if (!move && !copy) return undefined;
    const { workspace } = call;
    const resolved: { given: string; real: string }[] = [];
    for (const { word, targets } of words) {
      for (const target of targets) {
        try {
          resolved.push({ given: word, real: workspace.resolve(target) });
        } catch {
          // outside the workspace: no protected name lands there
        }
      }
    }
    if (resolved.length < (move ? 1 : 2)) return undefined;
    // what the sources hold lands in the destination (the last operand, or -t DIR), not the other
    // way round (`cp -r templates/ .`: the root's .git does not land in templates/), and the
    // destination is not walked; when the words do not say which it is, every folder is both
    const dest = destinationWord(command.argv.slice(1));
    const destinations = dest === undefined ? [] : resolved.filter((r) => r.given === dest);
    const sources = destinations.length === 0 ? resolved : resolved.filter((r) => r.given !== dest);
    const judged = judgedPaths(sources, { workspace, contents: true, aliases: false });
    const landed = destinations.length === 0 ? judged.paths : [...judged.paths, ...this.landings(workspace.realRoot, sources, destinations, judged.paths)];
    const doing = move ? 'moves' : 'copies';
    for (const p of landed) {
      if (p.via !== 'landing' && !(move && p.via === 'inside')) continue;
      const hit = this.protectedPart(p.relative);
      if (hit === undefined) continue;
      const where = p.via === 'landing' ? `would land ${JSON.stringify(p.relative)}` : `holds ${JSON.stringify(p.relative)}`;
      return this.refusal(call, `the command \`${shownText(command, 200)}\` ${doing} ${JSON.stringify(p.given)}, which ${where}, inside ${JSON.stringify(hit)}, a protected path (toolgate asks before any write to ${PROTECTED_LIST}; with no sandbox nothing else keeps it read-only)`, hit);
    }
    const shape = judged.landingShapes[0];
    if (shape !== undefined) return this.refusal(call, `the command \`${shownText(command, 200)}\` would make ${JSON.stringify(shape)} look like a git repository folder (HEAD, config, objects, refs, commondir), whose config git runs programs from`, shape);
    if (judged.incomplete !== undefined) return this.refusal(call, `the command \`${shownText(command, 200)}\` ${doing} folders: ${judged.incomplete}, so what lands where is put to the user`, 'too-large');
    return undefined;
  }

  /** Where the entries below `sources` (`paths` via `inside`) land below each of `destinations` (workspace-relative). */
  private landings(realRoot: string, sources: readonly { given: string; real: string }[], destinations: readonly { given: string; real: string }[], paths: readonly { given: string; relative: string; via: string }[]): { given: string; relative: string; via: 'landing' }[] {
    const out: { given: string; relative: string; via: 'landing' }[] = [];
    const rel = (real: string) => path.relative(realRoot, real).split(path.sep).join('/') || '.';
    for (const p of paths) {
      if (p.via !== 'inside') continue;
      const source = sources.find((s) => s.given === p.given && (rel(s.real) === '.' || p.relative.startsWith(`${rel(s.real)}/`)));
      if (source === undefined) continue;
      const base = rel(source.real);
      const below = base === '.' ? p.relative : p.relative.slice(base.length + 1);
      for (const d of destinations) {
        const at = rel(d.real);
        out.push({ given: source.given, relative: at === '.' ? below : `${at}/${below}`, via: 'landing' });
      }
    }
    return out;
  }

  /** Why `command` is a program the analysis cannot see that no allow rule names ({@link unseenProgram}), or undefined. */
  private ungranted(call: PreparedCall, command: ShellCommand): string | undefined {
    const unseen = unseenProgram(command);
    if (unseen === undefined || (unseen.grantable && this.grantsProgram(call, command))) return undefined;
    return `\`${shownText(command)}\` ${unseen.reason}`;
  }

  /** The protected component or prefix a workspace-relative path (`/`- or platform-separated) reaches, if any. */
  private protectedPart(relative: string): string | undefined {
    const parts = relative.split(/[\\/]/);
    for (const part of parts) if ([...this.names].some((name) => namesProtected(part, name))) return part;
    const joined = parts.join('/').toLowerCase();
    return this.prefixes.find((prefix) => joined === prefix || joined.startsWith(`${prefix}/`));
  }
}

/**
 * The destination word of a `cp` or `mv` (`-t DIR`, `--target-directory=DIR`, else the last
 * operand), or undefined when the words do not say plainly (`-rt DIR` in a cluster): then every
 * folder argument counts as a destination (fail closed).
 */
function destinationWord(args: readonly string[]): string | undefined {
  const at = args.findIndex((w) => w === '-t' || w === '--target-directory');
  if (at >= 0) return args[at + 1];
  const long = args.find((w) => w.startsWith('--target-directory='));
  if (long !== undefined) return long.slice('--target-directory='.length);
  if (args.some((w) => /^-[A-Za-z]*t/.test(w) && !w.startsWith('--'))) return undefined;
  const end = args.indexOf('--');
  const operands = end >= 0 ? args.slice(end + 1) : args.filter((w) => !w.startsWith('-'));
  return operands.at(-1);
}

/** A word of `command` (an argument, a redirection) computed when the line runs (`$x`, `` `x` ``, `$(x)`), not a plain glob; none when every word shows itself. */
function computedWord(command: ShellCommand): string | undefined {
  for (const i of command.dynamicWords ?? []) {
    const word = command.argv[i] ?? '';
    if (!/^[^'"\\$`{}~]*[*?[]/.test(word)) return word;
  }
  return [...command.writes, ...(command.reads ?? [])].find((word) => /[$`]/.test(word));
}

/**
 * The folder (workspace-relative, `/`-separated) a write to `relative` (a file, a folder, or
 * either when `isFile` is undefined) would make look like a git repository folder
 * ({@link gitDirShapeOf}), counting what it holds on disk and what the call's other paths
 * (`together`, workspace-relative) put there: the paths of one call land together.
 */
function gitDirShape(root: string, relative: string, isFile: boolean | undefined, together: readonly { readonly relative: string; readonly isFile: boolean | undefined }[]): string | undefined {
  if (relative === '.') return undefined;
  const folder = gitDirShapeOf(relative.split('/'), isFile, (parts) => {
    const entries: PathEntry[] = [];
    for (const other of together) {
      const otherParts = other.relative.split('/');
      // compared without case: a case-insensitive file system makes `Out/p` and `out/p` one folder
      if (otherParts.length <= parts.length || parts.some((part, i) => otherParts[i]!.toLowerCase() !== part.toLowerCase())) continue;
      const name = otherParts[parts.length]!;
      // the last part may be made as a file or a folder when its kind is not known yet
      if (otherParts.length > parts.length + 1 || other.isFile === false) entries.push({ name, isFile: false });
      else if (other.isFile === true) entries.push({ name, isFile: true });
      else entries.push({ name, isFile: true }, { name, isFile: false });
    }
    try {
      // A link counts as either kind: git follows a linked HEAD or objects.
      return [...entries, ...fs.readdirSync(path.join(root, ...parts), { withFileTypes: true }).flatMap((d) => (d.isSymbolicLink() ? [{ name: d.name, isFile: true }, { name: d.name, isFile: false }] : [{ name: d.name, isFile: d.isFile() }]))];
    } catch {
      return entries; // a folder the write makes: only what the call puts there
    }
  });
  return folder === undefined ? undefined : folder.length === 0 ? '.' : folder.join('/');
}
