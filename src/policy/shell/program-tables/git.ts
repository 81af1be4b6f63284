/**
 * git: the subcommands an allow rule for `git` covers (those that only read the repository),
 * the write subcommands a rule must name (`command = "git commit"`), and, per subcommand, the
 * options known safe. Not listed anywhere, so never covered without `allow_options`: the
 * global options that run programs or move git elsewhere (`-c`, `--config-env`,
 * `--exec-path`, `--git-dir`, `--work-tree`, `-p`/`--paginate`), and per subcommand the
 * options that write (`--output`), run programs (`--ext-diff`, `--textconv`, `-O` /
 * `--open-files-in-pager`, `--upload-pack`, `--exec`, `-S`/`--gpg-sign`, `-x`), or open an
 * editor or pager. A subcommand not listed (an alias, `git help`, `git fsck`) is covered only
 * by a rule naming exactly its words.
 *
 * @module
 */
import { opts, runs, writes } from './options.js';
import type { FormEntry, OptionEntry, ProgramTable } from './types.js';

/** Options of git's diff machinery, shared by diff, log, show and the diff plumbing (read only: no --output, --ext-diff, --textconv). */
const DIFF_OPTIONS: readonly OptionEntry[] = opts(
  '-p -u --patch', '-s --no-patch', '-U[=] --unified=', '--raw', '--patch-with-raw', '--patch-with-stat', '-t', '-z',
  '--minimal', '--patience', '--histogram', '--diff-algorithm=', '--anchored=', '--stat[=]', '--compact-summary', '--numstat',
  '--shortstat', '--dirstat[=]', '-X[=]', '--cumulative', '--dirstat-by-file[=]', '--summary', '--name-only', '--name-status',
  '--submodule[=]', '--color[=]', '--no-color', '--color-moved[=]', '--no-color-moved', '--color-moved-ws=', '--no-color-moved-ws',
  '--word-diff[=]', '--word-diff-regex=', '--color-words[=]', '--no-renames', '--rename-empty', '--no-rename-empty', '--check',
  '--ws-error-highlight=', '--full-index', '--binary', '--abbrev[=]', '-B[=] --break-rewrites[=]', '-M[=] --find-renames[=]',
  '-C[=] --find-copies[=]', '--find-copies-harder', '-D --irreversible-delete', '-l[=]', '--diff-filter=', '-S=', '-G=',
  '--find-object=', '--pickaxe-all', '--pickaxe-regex', '-O=', '--skip-to=', '--rotate-to=', '-R', '--relative[=]', '--no-relative',
  '-a --text', '--ignore-cr-at-eol', '--ignore-space-at-eol', '-b --ignore-space-change', '-w --ignore-all-space',
  '--ignore-blank-lines', '-I= --ignore-matching-lines=', '--inter-hunk-context=', '-W --function-context', '--exit-code', '--quiet',
  '--no-ext-diff', '--no-textconv', '--ignore-submodules[=]', '--src-prefix=', '--dst-prefix=', '--no-prefix', '--default-prefix',
  '--line-prefix=', '--ita-invisible-in-index', '--ita-visible-in-index', '--indent-heuristic', '--no-indent-heuristic', '-1', '-2', '-3',
  '--base', '--ours', '--theirs', '-c', '--cc', '--combined-all-paths', '-m', '--merge-base', '--no-index', '--cached', '--staged',
);

/** Options of git's revision walk (log, shortlog, rev-list...). */
const REVISION_OPTIONS: readonly OptionEntry[] = opts(
  '-n= --max-count=', '--skip=', '--since= --after=', '--until= --before=', '--since-as-filter=', '--author=', '--committer=',
  '--grep-reflog=', '--grep=', '--all-match', '--invert-grep', '-i --regexp-ignore-case', '--basic-regexp', '-E --extended-regexp',
  '-F --fixed-strings', '-P --perl-regexp', '--remove-empty', '--merges', '--no-merges', '--min-parents=', '--max-parents=',
  '--no-min-parents', '--no-max-parents', '--first-parent', '--exclude-first-parent-only', '--not', '--all', '--branches[=]',
  '--tags[=]', '--remotes[=]', '--glob=', '--exclude=', '--reflog', '--alternate-refs', '--single-worktree', '--ignore-missing',
  '--bisect', '--stdin', '--cherry-mark', '--cherry-pick', '--left-only', '--right-only', '--cherry', '-g --walk-reflogs', '--merge',
  '--boundary', '--simplify-by-decoration', '--show-pulls', '--full-history', '--dense', '--sparse', '--simplify-merges',
  '--ancestry-path[=]', '--date-order', '--author-date-order', '--topo-order', '--reverse', '--no-walk[=]', '--do-walk',
  '--pretty[=]', '--format=', '--abbrev-commit', '--no-abbrev-commit', '--oneline', '--encoding=', '--expand-tabs[=]', '--no-expand-tabs',
  '--notes[=]', '--no-notes', '--show-notes[=]', '--relative-date', '--date=', '--parents', '--children',
  '--left-right', '--graph', '--show-linear-break[=]', '--decorate[=]', '--no-decorate', '--decorate-refs=', '--decorate-refs-exclude=',
  '--source', '--mailmap', '--no-mailmap', '--use-mailmap', '--no-use-mailmap', '--full-diff', '--log-size', '-L=', '--follow',
  '--no-follow', '--count', '--timestamp', '--objects', '--objects-edge', '--no-object-names', '--header', '-v --verbose', '-q --quiet',
  '--no-graph', '--clear-decorations', '--diff-merges=', '--no-diff-merges', '--remerge-diff', '-N',
);

/** Known options of the diff machinery that write or run programs (for explain messages; never covered without allow_options). */
const DIFF_RUNNERS: readonly OptionEntry[] = [...writes('--output='), ...runs('--ext-diff', '--textconv')];

const form = (effect: FormEntry['effect'], options: readonly OptionEntry[], extra: Partial<FormEntry> = {}): FormEntry => ({ effect, options, ...extra });

/** `git config` reads with --get, --get-all, --get-regexp, --list or one name; anything else may set a value. */
function configReads(operands: readonly string[]): string | undefined {
  return operands.length <= 1 ? undefined : 'git config with a name and a value sets it (add --get to read)';
}

const CONFIG_READ_OPTIONS = opts(
  '--get', '--get-all', '--get-regexp', '--get-urlmatch', '-l --list', '--show-origin', '--show-scope', '--name-only', '-z --null',
  '--global', '--system', '--local', '--worktree', '-f= --file=', '--blob=', '--type=', '--bool', '--int', '--bool-or-int', '--path',
  '--expiry-date', '--default=', '--includes', '--no-includes', '--fixed-value',
);

/** git's subcommands: those with effect `read` are covered by a rule for `git`. */
const SUBCOMMANDS: Readonly<Record<string, FormEntry>> = {
  status: form('read', opts('-s --short', '-b --branch', '--show-stash', '--porcelain[=]', '--long', '-v --verbose', '-u[=] --untracked-files[=]',
    '--ignore-submodules[=]', '--ignored[=]', '-z', '--column[=]', '--no-column', '--ahead-behind', '--no-ahead-behind', '--renames',
    '--no-renames', '--find-renames[=]')),
  log: form('read', [...REVISION_OPTIONS, ...DIFF_OPTIONS, ...opts('--stat-width=', '--stat-name-width=', '--stat-count='), ...DIFF_RUNNERS]),
  show: form('read', [...REVISION_OPTIONS, ...DIFF_OPTIONS, ...DIFF_RUNNERS]),
  whatchanged: form('read', [...REVISION_OPTIONS, ...DIFF_OPTIONS]),
  diff: form('read', [...DIFF_OPTIONS, ...DIFF_RUNNERS]),
  'diff-tree': form('read', [...DIFF_OPTIONS, ...opts('-r', '--root', '--stdin', '--no-commit-id', '-v', '--pretty[=]', '--format=', '--always')]),
  'diff-index': form('read', DIFF_OPTIONS),
  'diff-files': form('read', DIFF_OPTIONS),
  shortlog: form('read', [...REVISION_OPTIONS, ...opts('-s --summary', '-e --email', '-c --committer', '-w[=]', '--group=')]),
  'rev-list': form('read', REVISION_OPTIONS),
  'rev-parse': form('read', opts('--parseopt', '--sq-quote', '--keep-dashdash', '--stop-at-non-option', '--stuck-long', '--revs-only', '--no-revs',
    '--flags', '--no-flags', '--default=', '--prefix=', '--verify', '-q --quiet', '--sq', '--short[=]', '--not', '--abbrev-ref[=]', '--symbolic',
    '--symbolic-full-name', '--all', '--branches[=]', '--tags[=]', '--remotes[=]', '--glob=', '--exclude=', '--disambiguate=', '--local-env-vars',
    '--path-format=', '--git-dir', '--git-common-dir', '--resolve-git-dir=', '--git-path=', '--show-toplevel', '--show-superproject-working-tree',
    '--shared-index-path', '--absolute-git-dir', '--is-inside-git-dir', '--is-inside-work-tree', '--is-bare-repository', '--is-shallow-repository',
    '--show-cdup', '--show-prefix', '--show-object-format[=]', '--show-ref-format', '--since=', '--after=', '--until=', '--before=')),
  'ls-files': form('read', opts('-c --cached', '-d --deleted', '-m --modified', '-o --others', '-i --ignored', '-s --stage', '-u --unmerged',
    '-k --killed', '--directory', '--no-empty-directory', '--eol', '--deduplicate', '-x= --exclude=', '-X= --exclude-from=',
    '--exclude-per-directory=', '--exclude-standard', '--error-unmatch', '--with-tree=', '-t', '-v', '-f', '--full-name', '--recurse-submodules',
    '--abbrev[=]', '--debug', '--sparse', '--format=', '-z')),
  'ls-tree': form('read', opts('-d', '-r', '-t', '-l --long', '-z', '--name-only', '--name-status', '--object-only', '--full-name', '--full-tree', '--abbrev[=]', '--format=')),
  'cat-file': form('read', opts('-t', '-s', '-e', '-p', '--batch[=]', '--batch-check[=]', '--batch-command[=]', '--batch-all-objects', '--buffer',
    '--unordered', '--follow-symlinks', '-Z', '-z', '--allow-unknown-type', '--use-mailmap', '--no-use-mailmap')),
  blame: form('read', opts('-b', '--root', '--show-stats', '-L=', '-l', '-t', '-S=', '--reverse=', '--first-parent', '-p --porcelain', '--line-porcelain',
    '--incremental', '--encoding=', '--contents=', '--date=', '--progress', '--no-progress', '-M[=]', '-C[=]', '--ignore-rev=', '--ignore-revs-file=',
    '--color-lines', '--color-by-age', '--minimal', '-h', '-c', '--score-debug', '-f --show-name', '-n --show-number', '-s', '-e --show-email',
    '-w', '--abbrev[=]', '--since=', '--no-textconv')),
  grep: form('read', opts('--cached', '--untracked', '--no-index', '--no-exclude-standard', '--exclude-standard', '--recurse-submodules', '-a --text',
    '-i --ignore-case', '-I', '--max-depth=', '-r --recursive', '--no-recursive', '-w --word-regexp', '-v --invert-match', '-h', '-H', '--full-name',
    '-E --extended-regexp', '-G --basic-regexp', '-P --perl-regexp', '-F --fixed-strings', '-n --line-number', '--column', '-l --files-with-matches',
    '--name-only', '-L --files-without-match', '-z --null', '-o --only-matching', '-c --count', '--color[=]', '--no-color', '--break', '--heading',
    '-p --show-function', '-A= --after-context=', '-B= --before-context=', '-C= --context=', '-W --function-context', '-m= --max-count=',
    '--threads=', '-f=', '-e=', '--and', '--or', '--not', '--all-match', '-q --quiet', '--no-textconv'), { numberOption: true }),
  'merge-base': form('read', opts('-a --all', '--octopus', '--independent', '--is-ancestor', '--fork-point')),
  'name-rev': form('read', opts('--tags', '--refs=', '--exclude=', '--all', '--annotate-stdin', '--name-only', '--no-undefined', '--always')),
  describe: form('read', opts('--dirty[=]', '--broken[=]', '--all', '--tags', '--contains', '--abbrev=', '--candidates=', '--exact-match', '--debug',
    '--long', '--match=', '--exclude=', '--always', '--first-parent')),
  'show-ref': form('read', opts('--head', '--branches', '--tags', '-d --dereference', '-s --hash[=]', '--abbrev[=]', '--verify', '--exists', '-q --quiet', '--exclude-existing[=]')),
  'for-each-ref': form('read', opts('--count=', '--sort=', '--format=', '--color[=]', '--shell', '--perl', '--python', '--tcl', '--points-at=',
    '--merged[=]', '--no-merged[=]', '--contains[=]', '--no-contains[=]', '--ignore-case', '--omit-empty', '--exclude=', '--stdin')),
  'count-objects': form('read', opts('-v --verbose', '-H --human-readable')),
  'check-ignore': form('read', opts('-q --quiet', '-v --verbose', '--stdin', '-z', '-n --non-matching', '--no-index')),
  'check-attr': form('read', opts('-a --all', '--cached', '--stdin', '-z', '--source=')),
  'check-ref-format': form('read', opts('--allow-onelevel', '--no-allow-onelevel', '--refspec-pattern', '--normalize', '--branch')),
  cherry: form('read', opts('-v', '--abbrev[=]')),
  'show-branch': form('read', opts('-r --remotes', '-a --all', '--current', '--topo-order', '--date-order', '--sparse', '--more=', '--list',
    '--merge-base', '--independent', '--no-name', '--sha1-name', '--topics', '-g[=] --reflog[=]', '--color[=]', '--no-color')),
  'range-diff': form('read', [...DIFF_OPTIONS, ...opts('--creation-factor=', '--left-only', '--right-only', '--no-dual-color')]),
  version: form('read', opts('--build-options')),
  var: form('read', opts('-l')),
  // listing only: a name creates a branch or tag, so no operand (use command = "git branch" for more)
  branch: form('read', opts('-a --all', '-r --remotes', '-v --verbose', '-vv', '-q --quiet', '--list', '-l', '--show-current', '--contains[=]',
    '--no-contains[=]', '--merged[=]', '--no-merged[=]', '--points-at=', '--sort=', '--format=', '--color[=]', '--no-color', '--column[=]',
    '--no-column', '--abbrev=', '--no-abbrev', '-i --ignore-case', '--omit-empty'), { operands: 'none', note: 'listing only: no name (that creates a branch)' }),
  tag: form('read', opts('-l --list', '-n[=]', '--contains[=]', '--no-contains[=]', '--merged[=]', '--no-merged[=]', '--points-at=', '--sort=',
    '--format=', '--color[=]', '--column[=]', '--no-column', '-i --ignore-case', '--omit-empty'), { operands: 'none', note: 'listing only: no name (that creates a tag)' }),
  remote: form('read', opts('-v --verbose'), { operands: 'none', note: 'listing only: `git remote show` and the rest reach the remote or change the config' }),
  config: form('read', CONFIG_READ_OPTIONS, { operands: configReads, note: 'reading only: --get, --list, or one name' }),
  stripspace: form('read', opts('-s --strip-comments', '-c --comment-lines')),
  // write subcommands: covered only by a rule naming them
  add: form('write', opts('-n --dry-run', '-v --verbose', '-f --force', '-i --interactive', '-p --patch', '-u --update', '-A --all', '--no-all',
    '--no-ignore-removal', '--ignore-removal', '-N --intent-to-add', '--refresh', '--ignore-errors', '--ignore-missing', '--sparse', '--renormalize',
    '--chmod=', '--pathspec-from-file=', '--pathspec-file-nul')),
  commit: form('write', opts('-a --all', '-p --patch', '-C= --reuse-message=', '-c= --reedit-message=', '--fixup=', '--squash=', '--reset-author',
    '--short', '--branch', '--porcelain', '--long', '-z --null', '-F= --file=', '--author=', '--date=', '-m= --message=', '-t= --template=',
    '-s --signoff', '--no-signoff', '--trailer=', '-n --no-verify', '--verify', '--allow-empty', '--allow-empty-message', '--cleanup=',
    '--no-edit', '--amend', '--no-post-rewrite', '-i --include', '-o --only', '--pathspec-from-file=', '--pathspec-file-nul',
    '-u[=] --untracked-files[=]', '-v --verbose', '-q --quiet', '--dry-run', '--status', '--no-status', '--no-gpg-sign'),
  { note: 'not -S/--gpg-sign (runs gpg), -e/--edit (an editor)' }),
  checkout: form('write', opts('-q --quiet', '--progress', '--no-progress', '-f --force', '--ours', '--theirs', '-b=', '-B=', '-t --track[=]', '--no-track',
    '--guess', '--no-guess', '-l', '-d --detach', '--orphan=', '--ignore-skip-worktree-bits', '-m --merge', '--conflict=', '-p --patch',
    '--ignore-other-worktrees', '--overwrite-ignore', '--no-overwrite-ignore', '--recurse-submodules', '--no-recurse-submodules', '--overlay', '--no-overlay')),
  switch: form('write', opts('-c= --create=', '-C= --force-create=', '-d --detach', '--guess', '--no-guess', '-f --force --discard-changes', '-m --merge',
    '--conflict=', '-q --quiet', '--progress', '--no-progress', '-t --track[=]', '--no-track', '--orphan=', '--ignore-other-worktrees',
    '--recurse-submodules', '--no-recurse-submodules')),
  restore: form('write', opts('-s= --source=', '-p --patch', '-W --worktree', '-S --staged', '-q --quiet', '--progress', '--no-progress', '--ours',
    '--theirs', '-m --merge', '--conflict=', '--ignore-unmerged', '--ignore-skip-worktree-bits', '--recurse-submodules', '--no-recurse-submodules',
    '--overlay', '--no-overlay', '--pathspec-from-file=', '--pathspec-file-nul')),
  rm: form('write', opts('-f --force', '-n --dry-run', '-r', '--cached', '--ignore-unmatch', '--sparse', '-q --quiet', '--pathspec-from-file=', '--pathspec-file-nul')),
  mv: form('write', opts('-f --force', '-k', '-n --dry-run', '-v --verbose')),
  reset: form('write', opts('-q --quiet', '--no-refresh', '--refresh', '--soft', '--mixed', '--hard', '--merge', '--keep', '-p --patch', '-N',
    '--pathspec-from-file=', '--pathspec-file-nul', '--recurse-submodules', '--no-recurse-submodules')),
  stash: form('write', opts('-p --patch', '-S --staged', '-k --keep-index', '--no-keep-index', '-u --include-untracked', '-a --all', '-q --quiet',
    '-m= --message=', '--index', '--pathspec-from-file=', '--pathspec-file-nul')),
  init: form('write', opts('-q --quiet', '--bare', '--object-format=', '--ref-format=', '-b= --initial-branch=', '--shared[=]'),
    { note: 'not --template or --separate-git-dir' }),
  // not -s/--strategy: a strategy NAME runs the program git-merge-NAME
  merge: form('write', opts('--commit', '--no-commit', '--edit', '--no-edit', '--ff', '--no-ff', '--ff-only', '--log[=]', '--no-log', '--signoff',
    '--no-signoff', '--stat', '-n', '--no-stat', '--squash', '--no-squash', '--verify', '--no-verify', '-X= --strategy-option=',
    '--summary', '--no-summary', '-q --quiet', '-v --verbose', '--progress', '--no-progress', '--autostash', '--no-autostash',
    '--allow-unrelated-histories', '-m=', '-F= --file=', '--into-name=', '--abort', '--quit', '--continue', '--no-gpg-sign')),
  fetch: form('network', opts('--all', '-a --append', '--atomic', '--depth=', '--deepen=', '--shallow-since=', '--shallow-exclude=', '--unshallow',
    '--update-shallow', '--dry-run', '-f --force', '-k --keep', '--multiple', '--prefetch', '-p --prune', '-P --prune-tags', '-n --no-tags',
    '-t --tags', '--refetch', '--refmap=', '-j= --jobs=', '--no-recurse-submodules', '--set-upstream', '-q --quiet', '-v --verbose', '--progress',
    '--no-progress', '--show-forced-updates', '--no-show-forced-updates', '-4 --ipv4', '-6 --ipv6'),
  { note: 'not --upload-pack, --recurse-submodules, -o/--server-option' }),
  pull: form('network', opts('-q --quiet', '-v --verbose', '--ff', '--no-ff', '--ff-only', '--rebase[=]', '--no-rebase', '--commit', '--no-commit',
    '--edit', '--no-edit', '--squash', '--no-squash', '--autostash', '--no-autostash', '--all', '--depth=', '--unshallow', '-t --tags', '-p --prune',
    '--no-recurse-submodules', '-4 --ipv4', '-6 --ipv6', '--no-verify', '--verify', '--stat', '--no-stat')),
  push: form('network', opts('--all', '--branches', '--mirror', '--tags', '--follow-tags', '--no-follow-tags', '-n --dry-run', '--porcelain',
    '-d --delete', '--prune', '-f --force', '--force-with-lease[=]', '--no-force-with-lease', '--force-if-includes', '-u --set-upstream',
    '-q --quiet', '-v --verbose', '--progress', '--no-progress', '--atomic', '--no-atomic', '--no-verify', '--verify', '-4 --ipv4', '-6 --ipv6'),
  { note: 'not --receive-pack/--exec, --repo, -o/--push-option, --signed' }),
};

/** git's options before the subcommand that change nothing about what runs. */
const GLOBAL_OPTIONS: readonly OptionEntry[] = [
  ...opts('--no-pager', '-P', '-C=', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs',
    '--no-optional-locks', '--no-advice', '-v --version', '-h --help'),
  // known, so that allow_options may name them; never covered otherwise
  ...runs('-c=', '--config-env=', '--exec-path[=]', '--git-dir=', '--work-tree=', '--namespace=', '-p --paginate', '--bare', '--super-prefix=',
    '--attr-source=', '--list-cmds='),
];

/** The git table. */
export const GIT: readonly ProgramTable[] = [
  { family: 'git', programs: ['git'], subcommands: SUBCOMMANDS, globalOptions: GLOBAL_OPTIONS },
];

