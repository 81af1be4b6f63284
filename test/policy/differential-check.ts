/**
 * The differential test's judgement: what the policy decides about a command line under the
 * allow rules a user would write for the programs it names ({@link decide}), and what bash
 * did that the analysis did not report ({@link unreported}).
 *
 * Reported, for a program executed: its name (the file's base name) is the program, or a
 * wrapper, of a command of the analysis, or the base name of a command's `argv[0]`.
 * Reported, for a changed file: a redirection of a command writes it (`ShellCommand.writes`),
 * or a word of a command names it: the same path, a folder it is in (other than the
 * workspace root: `find . -delete` names no file), or a path below it (`mkdir -p a/b` makes
 * `a`); a glob word names what it matches. A word computed at run time (`$X`, `$(...)`)
 * names nothing: what it becomes is what the analysis could not report.
 *
 * @module
 */
import path from 'node:path';
import picomatch from 'picomatch';
import type { ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import type { ShellAnalysis } from '../../src/policy/shell/types.js';
import type { Traced } from './differential-trace.js';
import { analysisOf, lineVerdict } from './line-verdict.js';

/** The shell tool the lines are judged as. */

/** What the policy said about one line. */
export interface Judged {
  /** `allow`, `ask`, `deny`, or `none` (no rule matched: nothing to compare). */
  readonly verdict: 'allow' | 'ask' | 'deny' | 'none';
  readonly analysis: ShellAnalysis;
  /** The policy file's text (the allow rules), for messages. */
  readonly rules: string;
}

/** Program names a rule's `command` may hold as a plain word (no glob characters, no blanks). */
const PLAIN_NAME = /^[A-Za-z0-9_.+/-]+$/;

/**
 * The policy's verdict on `line` as a `run_command` under one allow rule (`command = "NAME"`)
 * for each program and wrapper its analysis names (a program run by path gets a rule with
 * that path: an allow rule must name it as written).
 */
export function decide(analyze: ShellAnalyzer, line: string): Judged {
  const analysis = analysisOf(analyze, line);
  if (analysis.commands.length === 0) return { verdict: 'none', analysis, rules: '' };
  const names = new Set<string>();
  for (const command of analysis.commands) {
    const head = command.argv[0] ?? command.program;
    names.add(head.includes('/') ? head : command.program);
    for (const wrapper of command.wrappers) names.add(wrapper);
  }
  if ([...names].some((n) => !PLAIN_NAME.test(n))) return { verdict: 'none', analysis, rules: '' };
  const rules = [...names].map((n) => `[[rules]]\ncommand = ${JSON.stringify(n)}\naction = "allow"\n`).join('\n');
  return { verdict: lineVerdict(analyze, rules, line, analysis), analysis, rules };
}

/** What a traced run did that the analysis did not report. */
export interface Unreported {
  /** Programs executed (base names, with their argv). */
  readonly programs: readonly string[];
  /** Workspace-relative paths changed. */
  readonly files: readonly string[];
}

/**
 * Programs whose work is to run another, so that running it is what the analysis reported:
 * Debian's `egrep`, `fgrep` and `rgrep` are scripts that run `grep`, `gunzip` and `zcat` run
 * `gzip`; and `make` runs the recipes of the workspace's Makefile, which an allow rule naming
 * make grants by its nature (docs/policy.md says so). `*`: any program.
 */
const DELEGATES: ReadonlyMap<string, readonly string[]> = new Map([
  ['egrep', ['grep']], ['fgrep', ['grep']], ['rgrep', ['grep']],
  ['gunzip', ['gzip']], ['zcat', ['gzip']], ['uncompress', ['gzip']],
  ['make', ['*']], ['gmake', ['*']],
]);

/** See the module summary. `workspace` is the real path the line ran in (absolute words under it count). */
export function unreported(analysis: ShellAnalysis, traced: Traced, workspace: string): Unreported {
  const names = new Set<string>();
  for (const command of analysis.commands) {
    names.add(command.program);
    if (command.argv[0] !== undefined) names.add(path.basename(command.argv[0]));
    for (const wrapper of command.wrappers) names.add(wrapper);
  }
  for (const name of [...names]) for (const runs of DELEGATES.get(name) ?? []) names.add(runs);
  const grantsAnything = [...names].some((name) => DELEGATES.get(name)?.includes('*') === true);
  const programs = traced.executed.filter((e) => !grantsAnything && !names.has(path.basename(e.file))).map((e) => `${path.basename(e.file)} (${e.argv.join(' ').slice(0, 120)})`);
  const namers: Array<(p: string) => boolean> = [];
  for (const command of analysis.commands) {
    for (const word of [...command.argv.slice(1), ...command.writes]) {
      const namer = namerOf(word, workspace);
      if (namer !== undefined) namers.push(namer);
    }
  }
  const files = traced.changed.filter((p) => !grantsAnything && !namers.some((named) => named(p)));
  return { programs: [...new Set(programs)], files };
}

/** What a word names: a test on workspace-relative paths, or `undefined` for nothing. */
function namerOf(word: string, workspace: string): ((p: string) => boolean) | undefined {
  if (/[$`]/.test(word)) return undefined;
  let w = word.startsWith(`${workspace}/`) ? word.slice(workspace.length + 1) : word;
  w = w.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (w === '' || w === '.' || w.startsWith('/') || w.startsWith('../')) return undefined;
  if (/[*?[\]{}~\\]/.test(w)) {
    const matches = picomatch(w, { dot: false });
    return (p) => matches(p) || p.split('/').some((_, i, parts) => matches(parts.slice(0, i + 1).join('/')));
  }
  return (p) => p === w || p.startsWith(`${w}/`) || w.startsWith(`${p}/`);
}
