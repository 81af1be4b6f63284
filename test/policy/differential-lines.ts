/**
 * The command lines of the differential test (issue 30, item 9): per-program forms (the
 * programs the allow-rule tables cover, and the forms that write or run other code), the
 * command lines of the security cases, and mutations of both (quoting, wrappers, option
 * spellings, expansions, compound commands), drawn by a seeded generator so that every run
 * sees the same lines.
 *
 * The lines run in a scratch copy of the workspace {@link WORKSPACE_FILES} describes. Every
 * form that writes names `pwn` (or a file under `new/`) somewhere, so a failure is easy to
 * read.
 *
 * @module
 */

/** Files of the scratch workspace (path -> content; a mode for executables). */
export const WORKSPACE_FILES: Readonly<Record<string, string | { content: string; mode: number }>> = Object.freeze({
  'notes.txt': 'alpha beta\ngamma delta\nalpha omega\n',
  f: 'one\ntwo\n',
  'data/a.txt': 'a file\n',
  'data/b.txt': 'b file\n',
  'src/main.c': 'int main(void) { return 0; }\n',
  'spaced name.txt': 'spaced\n',
  'script.sed': '1w pwn\n',
  'prog.awk': '{ print > "pwn" }\n',
  Makefile: 'all:\n\ttouch pwn\n',
  'hook.sh': { content: '#!/bin/sh\ntouch hooked\n', mode: 0o755 },
});

/** Per-program forms: what a model would type, including the forms that write or run code. */
const FORMS: readonly string[] = [
  // git (the repository is made by the harness; `.git` is read-only in the sandbox)
  'git status', 'git status --short', 'git log --oneline -3', 'git log -1 --format=%H', 'git log --output=pwn', 'git log --output pwn -1',
  'git diff HEAD', 'git diff --output=pwn HEAD', 'git show --stat HEAD', 'git show HEAD --output=pwn', 'git branch', 'git branch -a', 'git tag',
  'git rev-parse HEAD', 'git ls-files', 'git blame notes.txt', 'git grep alpha', 'git grep -O./hook.sh alpha', 'git grep --open-files-in-pager=./hook.sh alpha',
  'git -c core.pager=./hook.sh log', 'git -p -c core.pager=./hook.sh log -1', `git -c core.pager='sh -c "touch pwn"' log`, `git -c alias.x='!touch pwn' x`,
  'git -c core.fsmonitor=./hook.sh status', 'git -c diff.external=./hook.sh diff HEAD~1', 'git --paginate -c core.pager=./hook.sh log -1',
  'git format-patch -1 -o new', 'git archive -o pwn.tar HEAD', 'git bundle create pwn.bundle HEAD', 'git stash list', 'git config --get user.name',
  'git shortlog -s HEAD', 'git describe --always', 'git cat-file -p HEAD', 'git worktree list', 'git -C data status', 'git --no-pager log -1',
  // sed, awk
  'sed -n 1p notes.txt', "sed -n '1w pwn' notes.txt", "sed 's/alpha/x/w pwn' notes.txt", 'sed -i s/alpha/x/ notes.txt', "sed '1e touch pwn' notes.txt",
  'sed --in-place=.bak s/a/b/ notes.txt', 'sed -f script.sed notes.txt', "sed -n 's/a/b/p' notes.txt", "sed -e 1d -e 2d notes.txt", "sed -s -n '$p' notes.txt f",
  "sed 'W pwn' notes.txt", "sed -n '/alpha/w pwn' notes.txt", 'sed --expression=1p -n notes.txt', "sed -z 's/a/b/' notes.txt",
  "awk '{print $1}' notes.txt", `awk '{print > "pwn"}' notes.txt`, `awk 'BEGIN{system("touch pwn")}'`, 'awk -f prog.awk notes.txt', "awk -F' ' 'NR==1' notes.txt",
  `awk '{print | "sh"}' notes.txt`, `awk 'BEGIN { while (("touch pwn" | getline l) > 0) print l }'`, "awk -v x=1 'END{print x}' notes.txt",
  // find
  "find . -name '*.txt'", 'find . -type f', 'find . -delete', 'find data -name a.txt -delete', 'find . -exec touch pwn \\;', "find . -execdir sh -c 'touch pwn' \\;",
  'find . -fprint pwn', 'find . -fls pwn', 'find . -fprintf pwn %p', 'find data -newer notes.txt', "find . -maxdepth 1 -name 'n*'", 'find data -exec cat {} +',
  "find . -exec sh -c 'touch pwn' \\;", 'find . -ok touch pwn \\;', 'find data -print0', 'find . -path ./data -prune -o -print',
  // grep
  'grep alpha notes.txt', 'grep -r alpha .', 'grep -c a notes.txt', 'grep -n -i ALPHA notes.txt', "grep -rl --include='*.txt' a .", 'grep -e alpha -e gamma notes.txt',
  'grep -f f notes.txt', 'egrep a notes.txt', 'grep -o al notes.txt',
  // sort and friends
  'sort notes.txt', 'sort -o pwn notes.txt', 'sort --output=pwn notes.txt', 'sort -u notes.txt -o notes.txt', 'sort -r -k2 notes.txt', 'sort --compress-program=./hook.sh notes.txt',
  'uniq notes.txt', 'uniq notes.txt pwn', 'tac notes.txt', 'nl notes.txt', 'wc -l notes.txt', 'cut -d" " -f1 notes.txt', 'tr a b < notes.txt', 'head -n 1 notes.txt', 'tail -n 1 notes.txt',
  'paste notes.txt f', 'comm f notes.txt', 'column -t notes.txt', 'fold -w 5 notes.txt', 'rev notes.txt', 'md5sum notes.txt', 'sha256sum notes.txt', 'base64 notes.txt', 'od -c f',
  'xxd f', 'xxd -r f pwn', 'split -l 1 notes.txt pwn', 'csplit notes.txt 2', 'cat notes.txt', 'cat -n notes.txt f', 'ls -la', 'ls data', 'du -s data', 'stat notes.txt', 'file notes.txt',
  'diff notes.txt f', 'cmp notes.txt f', 'echo hi', "printf '%s\\n' a b", 'seq 3', 'date +%Y', 'pwd', 'true', 'basename data/a.txt', 'realpath notes.txt',
  // tar and other archivers
  'tar cf pwn.tar data', 'tar tf a.tar', 'tar xf a.tar', 'tar xvf a.tar -C new', "tar xf a.tar --to-command='touch pwn'", 'tar czf pwn.tgz data',
  "tar cf pwn.tar --checkpoint=1 --checkpoint-action=exec='touch pwn' data", 'tar -tvf a.tar', 'zip -q pwn.zip notes.txt', 'unzip -l a.zip', 'unzip -o a.zip',
  'gzip notes.txt', 'gzip -k notes.txt', 'gzip -c notes.txt', 'gunzip -c a.gz',
  // xargs
  'echo notes.txt | xargs cat', 'echo pwn | xargs touch', "echo x | xargs -I{} sh -c 'touch pwn'", 'ls | xargs', 'echo data | xargs ls', 'printf "pwn\\0" | xargs -0 touch',
  'echo notes.txt | xargs -n1 wc -l', 'echo pwn | xargs -I % touch %',
  // writers with an operand
  'tee pwn < notes.txt', 'echo x | tee -a notes.txt', 'cp notes.txt pwn', 'cp -r data new', 'mv notes.txt pwn', 'dd if=notes.txt of=pwn', 'dd if=notes.txt of=pwn status=none',
  'install -m 644 notes.txt pwn', 'ln -s notes.txt pwn', 'ln notes.txt pwn', 'mkdir -p new/dir', 'rm -f notes.txt', 'rm -rf data', 'rmdir data', 'touch pwn', 'truncate -s 0 notes.txt',
  'chmod +x notes.txt', 'shred -u notes.txt', 'patch -p0 < f', 'cp -t new notes.txt', 'mv -t data notes.txt', 'echo hi > pwn', 'echo hi >> notes.txt', 'cat f > pwn',
  // programs that run code of their own
  'make', 'make -n', 'make -f Makefile all', "python3 -c 'open(\"pwn\", \"w\")'", "perl -e 'open(F, \">pwn\")'", "node -e 'require(\"fs\").writeFileSync(\"pwn\", \"\")'",
  "sh -c 'touch pwn'", "bash -c 'echo hi'", "eval 'touch pwn'", "env sh -c 'touch pwn'", 'sh hook.sh', '. ./hook.sh', 'source hook.sh',
];

/** The command lines of the security cases (C1 to C5) that a shell runs. */
const CASES: readonly string[] = [
  'echo ok && rm -rf data', 'cd data; curl http://127.0.0.1:9/', 'cat f | sh', 'ls > pwn', "eval \"$(echo 'touch pwn')\"", "bash -c 'touch pwn'",
  "env sh -c 'touch pwn'", 'git -C . commit -m x', 'git --no-pager commit -m x', `git -c core.pager='sh -c "touch pwn"' log`, 'git log --output=out.txt',
  "sed -n '1w pwn' notes.txt", "find . -exec sh -c 'touch pwn' \\;", 'find . -delete', 'timeout 5 rm -rf data', "env -S 'rm -rf data'",
];

/** Wrappers put in front of a form. */
const WRAPPERS: readonly string[] = [
  'timeout 5', 'timeout -s KILL 5', 'env', 'env -i PATH=/usr/bin:/bin', "env -S 'PATH=/usr/bin:/bin'", 'nice', 'nice -n 5', 'nohup', 'stdbuf -oL', 'command', 'exec', 'time',
  'builtin command', 'env --', 'nice --adjustment=2',
];

/** A seeded generator (mulberry32): the same seed gives the same lines. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

/** Words of a simple form split on blanks outside quotes (enough for the forms above). */
function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== undefined) {
      word += c;
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      word += c;
    } else if (c === '\\' && i + 1 < line.length) {
      word += c + line[++i];
    } else if (c === ' ') {
      if (word !== '') words.push(word);
      word = '';
    } else {
      word += c;
    }
  }
  if (word !== '') words.push(word);
  return words;
}

/** A mutation: a changed line, or `undefined` when it does not apply to this one. */
type Mutation = (line: string, random: Random) => string | undefined;

const isPlain = (w: string) => /^[A-Za-z0-9_./-]+$/.test(w);

/** The mutations, each a way bash reads the same thing differently written. */
const MUTATIONS: Readonly<Record<string, Mutation>> = Object.freeze({
  /** The program name quoted or escaped: `'sed'`, `"sed"`, `s\ed`, `\sed`. */
  quoteProgram: (line, random) => {
    const words = splitWords(line);
    const first = words[0]!;
    if (!/^[a-z][a-z0-9]+$/.test(first)) return undefined;
    const forms = [`'${first}'`, `"${first}"`, `${first[0]}\\${first.slice(1)}`, `\\${first}`, `${first[0]}''${first.slice(1)}`];
    return [pick(random, forms), ...words.slice(1)].join(' ');
  },
  /** One plain argument quoted another way. */
  quoteArgument: (line, random) => {
    const words = splitWords(line);
    const at = words.map((w, i) => (i > 0 && isPlain(w) ? i : -1)).filter((i) => i > 0);
    if (at.length === 0) return undefined;
    const i = pick(random, at);
    const w = words[i]!;
    words[i] = pick(random, [`'${w}'`, `"${w}"`, `$'${w}'`, `${w[0]}""${w.slice(1)}`]);
    return words.join(' ');
  },
  /** A wrapper in front. */
  wrap: (line, random) => (/[|;&]/.test(line) ? undefined : `${pick(random, WRAPPERS)} ${line}`),
  /** The program named by its path. */
  byPath: (line) => {
    const words = splitWords(line);
    return /^(git|sed|awk|find|grep|sort|tar|cp|mv|rm|touch|tee|dd|cat|ls|xargs|timeout|env|nice|make|uniq|split)$/.test(words[0]!) ? [`/usr/bin/${words[0]}`, ...words.slice(1)].join(' ') : undefined;
  },
  /** `--opt=x` as `--opt x`, or the other way round. */
  longOption: (line) => {
    if (/ --[a-z-]+=\S/.test(line)) return line.replace(/ (--[a-z-]+)=(\S+)/, ' $1 $2');
    const m = / (--(?:output|expression|in-place|to-command|checkpoint-action|compress-program|adjustment|open-files-in-pager)) (\S+)/.exec(line);
    return m === null ? undefined : line.replace(m[0], ` ${m[1]}=${m[2]}`);
  },
  /** Two short options clustered (`-n -e` as `-ne`), or a cluster split. */
  shortOptions: (line) => {
    const clustered = line.replace(/ -([a-zA-Z]) -([a-zA-Z])(?= )/, ' -$1$2');
    if (clustered !== line) return clustered;
    const split = line.replace(/ -([a-zA-Z])([a-zA-Z])(?= )/, ' -$1 -$2');
    return split !== line ? split : undefined;
  },
  /** A plain argument given through an expansion: `$(echo x)`, `${X:-x}`, a variable, a glob. */
  expand: (line, random) => {
    const words = splitWords(line);
    const at = words.map((w, i) => (i > 0 && /^[A-Za-z0-9_.][A-Za-z0-9_./-]*$/.test(w) ? i : -1)).filter((i) => i > 0);
    if (at.length === 0) return undefined;
    const i = pick(random, at);
    const w = words[i]!;
    const kind = Math.floor(random() * 5);
    if (kind === 0) words[i] = `$(echo ${w})`;
    else if (kind === 1) words[i] = `"\${UNSET_X:-${w}}"`;
    else if (kind === 2) words[i] = `\`echo ${w}\``;
    else if (kind === 3 && w.length > 2) words[i] = `${w.slice(0, -1)}?`;
    else return `V=${w}; ${words.map((x, j) => (j === i ? '"$V"' : x)).join(' ')}`;
    return words.join(' ');
  },
  /** The line inside a compound command or beside another. */
  compound: (line, random) => {
    const forms = [`true && ${line}`, `${line}; true`, `(${line})`, `{ ${line}; }`, `${line} 2>/dev/null`, `if true; then ${line}; fi`, `for i in 1; do ${line}; done`,
      `echo "$(${line})"`, `x=$(${line})`, `echo | ${line}`, `${line} | cat`, `! ${line}`, `while false; do :; done; ${line}`, `f() { ${line}; }; f`, `case x in x) ${line};; esac`];
    return pick(random, forms);
  },
});

const MUTATION_NAMES = Object.keys(MUTATIONS);

/** A generated line and the form or case it was made from. */
export interface GeneratedLine {
  readonly line: string;
  /** The per-program form or security case it mutates (itself when unmutated). */
  readonly base: string;
}

/**
 * `count` distinct command lines: first every case and form as written, then mutations of
 * them (one to three mutations each), drawn from `seed`.
 */
export function generateCases(count: number, seed = 30_9): GeneratedLine[] {
  const random = seeded(seed);
  const lines = new Map<string, string>();
  const bases = [...CASES, ...FORMS];
  for (const line of bases) {
    if (lines.size >= count) break;
    if (!lines.has(line)) lines.set(line, line);
  }
  let attempts = 0;
  while (lines.size < count && attempts < count * 50) {
    attempts++;
    const base = pick(random, bases);
    let line = base;
    const steps = 1 + Math.floor(random() * 3);
    for (let s = 0; s < steps; s++) {
      const changed = MUTATIONS[pick(random, MUTATION_NAMES)]!(line, random);
      if (changed !== undefined) line = changed;
    }
    if (!lines.has(line)) lines.set(line, base);
  }
  return [...lines].map(([line, base]) => ({ line, base }));
}

/** The lines of {@link generateCases}. */
export function generateLines(count: number, seed = 30_9): string[] {
  return generateCases(count, seed).map((c) => c.line);
}
