/**
 * Remembered approvals: the answers a person gave, kept so the same request does not ask
 * again (seeds `003_d2cf330b7b74164f.txt`, `004_1a9ea3106da7ef2e.txt`).
 *
 * A request is keyed by a SHA-256 (hex) of the RFC 8785 canonical JSON (`canonicalize`) of the
 * tool's name, its registration revision (version and schemas) and the hash of its built code
 * (`module-hash.ts`: a changed tool asks again), the validated input, the workspace's real
 * path, what its path arguments resolve to now (their real paths, workspace-relative), and
 * the questions the deciders before this one asked (a protected path's, a policy rule's). So
 * an answer settles only the question it was given for: after an `always` for `write_file
 * a.txt`, an `a.txt` replaced by a link to `.git/config` is another target and another
 * question (the protected path's), and is asked anew (case M1). A shell call (a tool with a
 * `@format shell-command` argument whose analysis is certain) has one key per command: the
 * command's words, wrappers and redirect targets, with the call's other arguments, so an
 * approval of `git status` covers `git status` and never the `rm x` beside it.
 *
 * - `allow_for_turn` keys are kept per turn (at most {@link MAX_TURNS} turns, the oldest
 *   forgotten first, and {@link MAX_KEYS_PER_TURN} keys per turn);
 * - a `deny` is kept by the whole request's key: that request is refused without a new
 *   question for the rest of the turn (a refused `echo ok && rm x` says nothing of `echo ok`);
 * - `always` keys are handed to a {@link SavedApprovals} store (the user's policy file), and kept
 *   for the turn too. `always` is refused for broad grants: a command run by a shell, an
 *   interpreter, `env`, `sudo` and their kin (their words can run anything), and a shell call
 *   whose analysis is uncertain; such an answer counts for the turn only.
 *
 * @module
 */
import path from 'node:path';
import { canonicalSha256 } from '../util/canonical-hash.js';
import { clip } from '../util/values.js';
import type { ApprovalAnswer } from '../decisions/approval.js';
import type { PreparedCall } from '../decisions/decision.js';
import type { ShellCommand } from './shell/types.js';
import { moduleHash } from './module-hash.js';

/** Turns remembered at once; the oldest is forgotten first. */
const MAX_TURNS = 256;
/** Keys remembered per turn (allowed and denied each); further answers count once. */
const MAX_KEYS_PER_TURN = 4096;

/**
 * Programs whose words can run anything: `always` is never saved for them (a grant for
 * `bash -c x` or `python y.py` would be a grant for whatever the text says next time the file
 * or the variable changes), nor for a command they wrap.
 */
const BROAD_PROGRAMS: ReadonlySet<string> = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'fish', 'csh', 'tcsh', 'busybox',
  'python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'lua', 'tclsh', 'R', 'Rscript', 'osascript', 'pwsh', 'powershell',
  'env', 'sudo', 'doas', 'su', 'eval', 'exec', 'source', '.', 'xargs', 'nohup', 'timeout', 'nice', 'setsid', 'command', 'builtin', 'find', 'make', 'npx', 'npm', 'yarn', 'pnpm',
  // they run the project's own code, which the model may write
  'cargo', 'go', 'pytest', 'tox', 'nox', 'jest', 'vitest', 'mocha', 'tsx', 'ts-node', 'bundle', 'rake', 'gradle', 'gradlew', 'mvn', 'ant', 'dotnet', 'java', 'php', 'composer', 'pip', 'pip3', 'uv', 'poetry', 'pipenv', 'just', 'task', 'cmake', 'ninja', 'meson', 'swift', 'ruby', 'gem', 'deno', 'docker', 'podman', 'kubectl', 'terraform', 'ansible',
  'bazel', 'bazelisk', 'buck', 'buck2', 'pants', 'sbt', 'lein', 'clojure', 'stack', 'cabal', 'ghc', 'runghc', 'mix', 'elixir', 'erl', 'rebar3', 'zig', 'ctest', 'rspec', 'phpunit', 'pest', 'bats', 'pre-commit', 'lefthook', 'husky', 'nx', 'turbo', 'lerna', 'rush', 'bunx', 'pnpx', 'dune', 'opam', 'nim', 'nimble', 'crystal', 'dart', 'flutter', 'julia', 'scala', 'kotlin', 'kotlinc', 'groovy', 'jshell',
]);

/** Saved `always` answers: the user's policy file, re-read by its owner when it changes. */
export interface SavedApprovals {
  /** Whether `key` was saved. Called on the decision path: must be cheap. */
  has(key: string): boolean;
  /** Whether any key is saved (lets calls skip hashing when none is). */
  readonly size: number;
  /**
   * Save `key`, with a line a person reading the file recognises (`summary`). Errors are the
   * store's to report (a log line): the answer still counts for the turn.
   */
  save(key: string, tool: string, summary: string): void;
  /**
   * Save several keys of one answer at once (one per command of a shell call): one write
   * instead of one per key. When absent, {@link save} is called for each.
   */
  saveAll?(entries: ReadonlyArray<{ readonly key: string; readonly tool: string; readonly summary: string }>): void;
}

/** One turn's answers. */
interface TurnMemory {
  readonly allowed: Set<string>;
  readonly denied: Set<string>;
}

/** What the memory says about a call. */
export type Recalled =
  | { readonly verdict: 'allow'; readonly scope: 'turn' | 'always' }
  | { readonly verdict: 'deny' }
  | undefined;

/** The keys of one call: one for the whole request, or one per command of a shell call. */
interface CallKeys {
  readonly keys: readonly string[];
  /** The key of the whole request: what a denial is remembered by (refusing `echo ok && rm x` says nothing about `echo ok`). */
  readonly whole: string;
  /** Whether `always` may be saved for them. */
  readonly narrow: boolean;
  /** Readable forms of what each key stands for, for the policy file. */
  readonly summaries: readonly string[];
}

/** The answers given in one executor: per turn, and the saved ones. */
export class RememberedApprovals {
  /** Turns by id, oldest first (a Map keeps insertion order). */
  private readonly turns = new Map<string, TurnMemory>();
  /** Keys computed for a call, so one call hashes once. */
  private readonly computed = new WeakMap<PreparedCall, CallKeys>();
  /** The questions asked about a call before the remembered answers were consulted ({@link noteQuestions}). */
  private readonly questions = new WeakMap<PreparedCall, readonly string[]>();

  /** @param saved - where `always` answers go; `undefined`: `always` is not offered. */
  constructor(private readonly saved: SavedApprovals | undefined) {}

  /**
   * Whether nothing is remembered for calls of `turnId`: no answer in that turn and none
   * saved. The decider then costs a lookup, without hashing the call.
   */
  nothingFor(turnId: string): boolean {
    return !this.turns.has(turnId) && (this.saved === undefined || this.saved.size === 0);
  }

  /**
   * Note the questions (`decider:rule:reason` of each `ask`) the deciders before the remembered one
   * asked about `call`: they are part of its keys, so a remembered answer settles only the
   * questions it was given for. Call before {@link recall}, {@link offers} and
   * {@link remember} (the remembered decider does, on every call).
   */
  noteQuestions(call: PreparedCall, questions: readonly string[]): void {
    if (this.computed.has(call)) return;
    // Most calls were asked nothing: they add no entry (a WeakMap entry per call costs the
    // garbage collector more than the rest of the decider; `npm run bench` counts it).
    if (questions.length === 0) this.questions.delete(call);
    else this.questions.set(call, questions);
  }

  /** What was answered before about `call`: a denial in its turn wins over any grant. */
  recall(call: PreparedCall): Recalled {
    const { keys, whole } = this.keysOf(call);
    const turn = this.turns.get(call.turnId);
    if (turn !== undefined && turn.denied.has(whole)) return { verdict: 'deny' };
    let scope: 'turn' | 'always' = 'turn';
    for (const key of keys) {
      if (turn?.allowed.has(key)) continue;
      if (this.saved?.has(key)) {
        scope = 'always';
        continue;
      }
      return undefined;
    }
    return { verdict: 'allow', scope };
  }

  /** The answers a person may give about `call`. */
  offers(call: PreparedCall): readonly ApprovalAnswer[] {
    if (this.saved === undefined || !this.keysOf(call).narrow) return TURN_ONLY;
    return ALL_ANSWERS;
  }

  /** Remember a person's answer about `call` (`allow_once` is not remembered). */
  remember(call: PreparedCall, answer: ApprovalAnswer): void {
    if (answer === 'allow_once') return;
    const { keys, whole, narrow, summaries } = this.keysOf(call);
    const turn = this.turnOf(call.turnId);
    if (answer === 'deny') {
      if (turn.denied.size < MAX_KEYS_PER_TURN) turn.denied.add(whole);
      return;
    }
    for (const key of keys) if (turn.allowed.size < MAX_KEYS_PER_TURN) turn.allowed.add(key);
    if (answer === 'always' && narrow && this.saved !== undefined) {
      const saved = this.saved;
      if (saved.saveAll !== undefined) saved.saveAll(keys.map((key, i) => ({ key, tool: call.tool.name, summary: summaries[i]! })));
      else keys.forEach((key, i) => saved.save(key, call.tool.name, summaries[i]!));
    }
  }

  /** The memory of a turn, made (and the oldest turn forgotten past the bound) on first use. */
  private turnOf(turnId: string): TurnMemory {
    let turn = this.turns.get(turnId);
    if (turn === undefined) {
      if (this.turns.size >= MAX_TURNS) this.turns.delete(this.turns.keys().next().value!);
      turn = { allowed: new Set(), denied: new Set() };
      this.turns.set(turnId, turn);
    }
    return turn;
  }

  private keysOf(call: PreparedCall): CallKeys {
    let found = this.computed.get(call);
    if (found === undefined) {
      found = callKeys(call, this.questions.get(call) ?? NO_QUESTIONS);
      this.computed.set(call, found);
    }
    return found;
  }
}

const TURN_ONLY: readonly ApprovalAnswer[] = Object.freeze(['allow_once', 'allow_for_turn', 'deny']);
const ALL_ANSWERS: readonly ApprovalAnswer[] = Object.freeze(['allow_once', 'allow_for_turn', 'always', 'deny']);

/** SHA-256 (hex) of the canonical JSON of `value`. */
const keyOf = canonicalSha256;

const NO_QUESTIONS: readonly string[] = Object.freeze([]);

/**
 * What every key of a call holds besides its input: the tool's registration revision and code
 * hash, the workspace, the real paths its path arguments resolve to now (workspace-relative),
 * and the questions asked before (sorted).
 */
function context(call: PreparedCall, questions: readonly string[]): Record<string, unknown> {
  const root = call.workspace.realRoot;
  return {
    revision: call.tool.revision,
    code: moduleHash(call.tool.moduleUrl),
    workspace: root,
    targets: call.paths.map((p) => path.relative(root, p.real).split(path.sep).join('/')),
    questions: [...questions].sort(),
  };
}

/** The key of a request: tool name, its context ({@link context}), canonical input. */
function requestKey(call: PreparedCall, shared: Record<string, unknown>): string {
  return keyOf({ tool: call.tool.name, ...shared, input: call.args });
}

/** The keys of a call (see the module's TSDoc). */
function callKeys(call: PreparedCall, questions: readonly string[]): CallKeys {
  const shared = context(call, questions);
  const whole = requestKey(call, shared);
  const asWhole = (narrow: boolean): CallKeys => ({ keys: [whole], whole, narrow, summaries: [`${call.tool.name} ${clip(JSON.stringify(call.args))}`] });
  if (call.commands.length === 0) return asWhole(true);
  const commands = call.commands.flatMap((a) => a.commands);
  if (call.commands.some((a) => a.uncertain.length !== 0) || commands.length === 0) return asWhole(false);
  // Bare words alone are not the whole story when the line carries state between commands or
  // into a program (assignments, `cd`, heredocs, words the shell expands) or names a program by
  // path: such a line is keyed as a whole, by its exact text, and never saved for good unless
  // every word is literal (a literal heredoc is exact; `rm -rf *` or `$F` is not).
  const literal = commands.every((c) => !c.argv[0]!.includes('/') && [...c.argv, ...c.writes, ...(c.reads ?? []), ...(c.globalWords ?? []), ...(c.wrapperWords ?? []).flat()].every(isLiteralWord));
  const texts = call.tool.commandArguments.map((name) => call.args[name]).filter((v): v is string => typeof v === 'string');
  const stateful = texts.some((t) => /<<|(^|[\s;&|(`])[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(t)) || commands.some((c) => STATEFUL_PROGRAMS.has(c.program));
  if (!literal || stateful) return asWhole(literal && !commands.some(isBroad));
  // The call's other arguments (its folder, its timeout, its environment) belong to every command's key.
  const rest: Record<string, unknown> = { ...call.args };
  for (const name of call.tool.commandArguments) delete rest[name];
  const keys: string[] = [];
  const summaries: string[] = [];
  for (const command of commands) {
    // Every word the person saw is in the key: the wrappers' own options (`time -o FILE`), git's
    // global options (`git --bare -p log` is not `git log`), and the files read (`cat < .env` is not `cat < notes.txt`).
    const own = { argv: command.argv, wrappers: command.wrapperWords ?? command.wrappers, globals: command.globalWords ?? [], writes: command.writes, reads: command.reads ?? [] };
    keys.push(keyOf({ tool: call.tool.name, ...shared, command: own, rest }));
    summaries.push(`${call.tool.name}: ${clip([...(command.wrapperWords ?? []).flat(), ...command.argv.slice(0, 1), ...(command.globalWords ?? []), ...command.argv.slice(1)].join(' '))}${command.reads?.length ? ` < ${command.reads.join(' ')}` : ''}${command.writes.length ? ` > ${command.writes.join(' ')}` : ''}`);
  }
  return { keys, whole, narrow: !commands.some(isBroad), summaries };
}

/** Builtins that change the state later commands run in (their folder, their variables, their names). */
const STATEFUL_PROGRAMS: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd', 'export', 'declare', 'typeset', 'local', 'readonly', 'set', 'unset', 'shopt', 'alias', 'unalias', 'hash', 'enable', 'read', 'mapfile', 'readarray', 'let', 'umask', 'ulimit', 'trap']);

/** A word the shell passes as written: no expansion, no glob, no home folder. */
function isLiteralWord(word: string): boolean {
  return !/[$`*?[\]{}~\\\u0000]/.test(word);
}

function isBroad(command: ShellCommand): boolean {
  return BROAD_PROGRAMS.has(command.program) || command.wrappers.some((w) => BROAD_PROGRAMS.has(w));
}
