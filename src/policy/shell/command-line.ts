/**
 * The walk over a parsed command line (tree-sitter-bash 0.25 syntax tree) that finds every
 * simple command at every depth, unwraps wrappers, shells and `eval`, and notes what it cannot
 * vouch for. Parsing itself is given as a function, so that only `analyze.ts` imports the
 * parser.
 *
 * Semantics chosen here:
 * - A shell given a static `-c TEXT` (and `eval` of static words) is replaced by the commands
 *   of TEXT; the shell's name goes into their `wrappers`. Likewise for the wrappers of
 *   `wrappers.ts`: the inner command is recorded, the wrapper named in `wrappers`.
 * - `find ... -exec|-execdir|-ok|-okdir CMD ... ;` records `find` itself and CMD as a command
 *   of its own with `find` as its last wrapper.
 * - `trap 'TEXT' SIGNAL`, `su -c 'TEXT'` and `alias NAME='TEXT'` are analysed like `bash -c`
 *   (TEXT runs later, or as another user); `su` without `-c` reads commands from standard
 *   input, so it is uncertain.
 * - Setting PATH, LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, BASH_ENV or ENV anywhere (`PATH=. ls`,
 *   `export PATH=...`, `env LD_PRELOAD=x ls`) is uncertain: program names no longer say what
 *   runs.
 * - Words of a wrapper or a shell before its command that are not static are uncertain: an
 *   unquoted `$X` may split into several words, a quoted one may be `-c`.
 * - A redirection that writes, on a compound command (`{ a; b; } > f`, `(x) > f`,
 *   `while ...; done > f`) or on a shell running `-c TEXT`, is recorded in `writes` of every
 *   command inside it, except commands inside `$( )` or `<( )` (their output goes elsewhere).
 *   A redirection that reads (`< f`, `0< f`, `<> f`) is recorded likewise in `reads`
 *   (here-documents, here-strings and fd duplications such as `<&3` name no file).
 * - `argv[0]` becomes the program's basename, like `program`, unless it holds a `/`: then it
 *   stays as written (`./git`), so that a rule for `git` does not allow it.
 * - Text bash would run that the grammar gives no substitution node for (a backtick inside
 *   `${x:-...}` or an unquoted heredoc, `<(...)` inside `${...}`) is uncertain; so is data bash
 *   evaluates as code (`evaluation.ts`): arithmetic over a variable or substitution, array
 *   subscripts, `${x@P}`, `${!x}`, `[[ $x -eq 1 ]]`, `-v NAME`, `printf -v`/`read` into a
 *   dynamic name, `declare -n`/`-i`, `let`, and static words or values holding `$(` or a backtick.
 * - An environment variable given to a program (`NAME=v cmd`, `env NAME=v`, `export NAME`) must
 *   be in the safe list of `programs.ts`; a plain `NAME=v` statement must not set a name that
 *   is commonly exported already (`PAGER`, `GIT_*`...).
 * - git in a command line that changes folder anywhere (`cd`, `pushd`, `popd`, `find -execdir`,
 *   `env -C`, `sudo -D`, `chroot`...) is uncertain, like `git -C DIR`: it may read the repository
 *   (and config that runs programs) of another folder (`folder-changes.ts`).
 * - `coproc` with a compound command, and programs that run a command the analysis does not
 *   unwrap (`strace`, `watch`, `gdb`...), are uncertain.
 *
 * The commands that run other command text (shells, `eval`, `alias`, `trap`, `su`, `xargs`,
 * `find -exec`) are in `command-runners.ts`.
 *
 * @module
 */
import { mostSevere, type ActionKind } from '../action-kinds.js';
import { readsCodeFromStdin, runsCommandsFromText } from './code-arguments.js';
import type { ShellAnalysis, ShellCommand } from './types.js';
import { evaluatedDeclaration, evaluatedWords, holdsCode, holdsSubstitution } from './evaluation.js';
import { arithmeticDoubt, expansionDoubts, subscriptDoubt, testCommandDoubts } from './evaluated-syntax.js';
import {
  hasDynamicSubcommand, isProgramLoader, isSafeEnvironmentName, isStdinPath, kindOfCommand, normaliseGit, SHELLS, SOURCE_BUILTINS, UNANALYSED_RUNNERS,
} from './programs.js';
import { childrenOf, resolveWord, type SyntaxNode, type Word } from './words.js';
import {
  COMPOUND_STARTS, LITERAL, RESERVED_WORDS, TRANSPARENT, WRITING_REDIRECTS,
} from './syntax-tables.js';
import { isWrapper, takesAssignments, unwrapOnce } from './wrappers.js';
import { runsFedCode } from './fed-code.js';
import { changesFolder, gitInChangedFolder, wrapperChangesFolder } from './folder-changes.js';
import { homeWordsUnseen } from './home-words.js';
import { nameChanges, type NameChanges } from './name-changes.js';
import { bindLoop, readingsOf, readWord, withLoopWords, type LoopReading } from './loop-bindings.js';
import { commandsInOptions } from './command-options.js';
import { echoedText, feedsInput, literalFeed } from './fed-input.js';
import type { AssignmentUse, CommandWalker, Context, ParseCommandLine } from './walk-context.js';
import { alias, basename, checkAssignment, evaluate, findExec, MAX_COMMAND_LINE_LENGTH, quote, shell, splitWords, switchUser, trap, xargsPastes } from './command-runners.js';
export type { ParseCommandLine } from './walk-context.js';
export { MAX_COMMAND_LINE_LENGTH } from './command-runners.js';

/** Wrappers and runners that run their command as another user, whose `HOME` differs. */
const USER_SWITCHES: ReadonlySet<string> = new Set(['sudo', 'doas', 'su']);

/** How deep shells, `eval` and `env -S` may nest (`bash -c "bash -c '...'"`) before the analysis gives up: 8 levels. */
const MAX_NESTED_SHELLS = 8;

/** The most simple commands one command line may hold (4,096) before the analysis stops: past it, the line is beyond its limits. */
const MAX_COMMANDS = 4096;

/** How deep the syntax tree may nest (subshells in substitutions in loops...) before the analysis gives up. */
const MAX_TREE_DEPTH = 256;

/** Whether `word`, as a program name, is a path (`./git`, `/bin/rm`): then `argv[0]` keeps it as written. */
function isPath(word: string): boolean {
  return word.includes('/');
}

/**
 * Analyses one command line: every simple command in it and the reasons it cannot vouch for
 * the text. Never throws: an unexpected failure of the walk becomes an `uncertain` reason.
 */
export function analyseCommandLine(text: string, parse: ParseCommandLine): ShellAnalysis {
  const walk = new CommandLineWalk(parse);
  try {
    walk.line(text, { depth: 0, writes: [], wrappers: [] });
  } catch (error) {
    walk.limit(`the analysis failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const git = gitInChangedFolder(walk.changedFolder, walk.commands);
  if (git !== undefined) walk.doubt(git);
  let commands: readonly ShellCommand[] = walk.commands;
  if (walk.homeChange !== undefined) {
    const unseen = commands.map((command) => homeWordsUnseen(command));
    if (unseen.some((command) => command !== undefined)) {
      commands = commands.map((command, i) => unseen[i] ?? command);
      walk.doubt(`HOME may change in the command line (${quote(walk.homeChange)}), so its ~ words name a folder the analysis does not know`);
    }
  }
  const kinds: ActionKind[] = ['shell_command', ...commands.map((command) => command.kind)];
  const callerInput = [...walk.callerInput].filter((reason) => walk.uncertain.has(reason));
  const analysis = { commands, uncertain: [...walk.uncertain], kind: mostSevere(kinds), ...(callerInput.length > 0 && { callerInput }) };
  return walk.beyondLimits ? { ...analysis, beyondLimits: true } : analysis;
}

class CommandLineWalk implements CommandWalker {
  readonly commands: ShellCommand[] = [];
  readonly uncertain = new Set<string>();
  /**
   * Whether any command changes folder (`cd`, `pushd`, `find -execdir`, `env -C`, `sudo -D`,
   * `chroot`...). Where it stands does not matter: a loop or a function runs git after it.
   */
  changedFolder = false;
  /** The text being walked (the command line, or the text of a `bash -c` inside it): node indices point into it. */
  private source = '';
  /** What the texts being walked hold that may change a loop's variable inside its body (`trap`, `alias`, namerefs, `eval`; the functions they define). */
  private scope: { deferred: string | undefined; functions: ReadonlyMap<string, NameChanges> } = { deferred: undefined, functions: new Map() };

  constructor(private readonly parse: ParseCommandLine) {}

  /** Where the line may change `HOME` (`read HOME`, `for HOME in`, `env HOME=v bash -c`...), when it may: its `~` words are then unseen (`home-words.ts`). */
  homeChange: string | undefined;

  /** Whether the walk stopped at one of its limits (length, commands, nesting, parse time): commands may be missing anywhere. */
  beyondLimits = false;

  doubt(reason: string): void {
    this.uncertain.add(reason);
  }

  /** The doubts that a shell or interpreter reads the call's own standard input (`ShellAnalysis.callerInput`). */
  readonly callerInput = new Set<string>();

  /** A program reads commands or code from standard input: the call's own (`callerInput`), or text the line feeds it (a plain doubt). */
  readsInput(what: string, context: Context, text: string): void {
    if (context.fedInput === true) return this.doubt(`${what} fed to it by the command line (a heredoc, a here-string, a pipe or a file), which the analysis does not read: ${quote(text)}`);
    const reason = `${what} from standard input: ${quote(text)}`;
    this.doubt(reason);
    this.callerInput.add(reason);
  }

  /** A limit reached: {@link beyondLimits}, and the reason in `uncertain`. */
  limit(reason: string): void {
    this.beyondLimits = true;
    this.doubt(reason);
  }

  /** Parses and walks a whole command line (the top one, or the text of `bash -c`/`eval`). */
  line(text: string, context: Context): void {
    if (text.trim() === '') return;
    // bash drops what follows a NUL; the parser and the analysis read on
    if (text.includes('\0')) return this.doubt('a NUL character in the command line');
    if (context.depth > MAX_NESTED_SHELLS) return this.limit(`shells or eval nested deeper than ${MAX_NESTED_SHELLS} levels`);
    if (text.length > MAX_COMMAND_LINE_LENGTH) return this.limit(`command line longer than ${MAX_COMMAND_LINE_LENGTH} characters`);
    const parsed = this.parse(text);
    if (typeof parsed === 'string') return this.limit(parsed);
    const changes = nameChanges(parsed.root);
    this.changedNames(changes, context);
    const outer = this.source;
    const outerScope = this.scope;
    this.source = text;
    // what a loop of this text must not find anywhere in it (or around it): code that runs inside its body
    this.scope = { deferred: outerScope.deferred ?? changes.deferred, functions: new Map([...outerScope.functions, ...changes.functions]) };
    try {
      const before = this.uncertain.size;
      this.visit(parsed.root, context, 0);
      if (parsed.root.hasError && this.uncertain.size === before) this.doubt(`cannot parse ${quote(text)}`);
    } finally {
      this.source = outer;
      this.scope = outerScope;
      parsed.release();
    }
  }

  /**
   * The variables a walked text may change other than by `NAME=value` (checked where it
   * stands): `read PATH`, `for PAGER in ...`, `printf -v GIT_DIR` are doubts like an assignment
   * statement of the name; and whether `HOME` may change, here or for a shell run as another
   * user (`sudo bash -c`), which makes the line's `~` words unseen.
   */
  private changedNames(changes: NameChanges, context: Context): void {
    for (const [name, where] of changes.names) if (!where.assignment) checkAssignment(this, `${name}=`, where.text, 'statement');
    const switched = context.wrappers.find((wrapper) => USER_SWITCHES.has(wrapper));
    this.homeChange ??= changes.names.get('HOME')?.text ?? (changes.environment.has('HOME') ? 'HOME given to a program\'s environment' : undefined)
      ?? changes.any ?? (switched === undefined ? undefined : `a shell run by ${switched}`);
  }

  private visit(node: SyntaxNode, context: Context, level: number): void {
    if (level > MAX_TREE_DEPTH) return this.limit(`constructs nested deeper than ${MAX_TREE_DEPTH} levels`);
    if (node.isMissing) return this.doubt(`incomplete command line: missing ${node.type === '' ? 'a word' : quote(node.type)}`);
    if (!node.isNamed) return;
    if ((context.doubleQuoted === true || !LITERAL.has(node.type)) && node.type !== 'ERROR') this.unparsed(node);
    switch (node.type) {
      case 'ERROR':
        return this.doubt(`cannot parse ${quote(node.text)}`);
      case 'command':
        return this.command(node, context, [], level);
      case 'redirected_statement':
        return this.redirected(node, context, level);
      case 'pipeline': {
        // every command after the first reads what the one before it writes
        let previous: SyntaxNode | undefined;
        const { fedText: _fed, ...piped } = context;
        for (const child of childrenOf(node)) {
          if (!child.isNamed) continue;
          const fedText = previous === undefined ? undefined : echoedText(previous);
          this.visit(child, previous === undefined ? context : { ...piped, fedInput: true, ...(fedText !== undefined && { fedText }) }, level + 1);
          previous = child;
        }
        return;
      }
      case 'declaration_command':
      case 'unset_command':
        this.builtin(node, context);
        return this.visitChildren(node, context, level);
      case 'variable_assignment':
        this.assignment(node, 'statement');
        return this.visitChildren(node, context, level);
      case 'command_substitution':
      case 'process_substitution':
        // inside backticks, `\`` and `\$(` start nested substitutions the grammar reads as text
        if (this.source[node.startIndex] === '`' && /\\[`$]/.test(node.text)) this.doubt(`nested backticks in ${quote(node.text)}`);
        return this.visitChildren(node, { ...context, writes: [], doubleQuoted: false }, level);
      case 'string':
      case 'translated_string':
      case 'heredoc_body':
        return this.visitChildren(node, { ...context, doubleQuoted: true }, level);
      case 'heredoc_redirect':
        return this.heredoc(node, context, level);
      case 'arithmetic_expansion':
        arithmeticDoubt(this, node, node);
        return this.visitChildren(node, context, level);
      case 'compound_statement':
        if (node.child(0)?.type === '((') arithmeticDoubt(this, node, node);
        return this.visitChildren(node, context, level);
      case 'c_style_for_statement':
        for (let i = 0; i < node.childCount; i += 1) {
          const child = node.child(i);
          if (child !== null && child.isNamed && node.fieldNameForChild(i) !== 'body') arithmeticDoubt(this, child, node);
        }
        return this.visitChildren(node, context, level);
      case 'for_statement':
      case 'case_statement':
        // the words a loop iterates over (and a case's subject) are words of the line: each
        // command inside judges them as paths (`for f in ~/.ssh/*; do cat "$f"; done`)
        return this.visitChildren(node, { ...withLoopWords(node, context), bindings: bindLoop(node, context.bindings, this.scope) }, level);
      case 'subscript':
        subscriptDoubt(this, node);
        return this.visitChildren(node, context, level);
      case 'expansion':
        expansionDoubts(this, node);
        return this.visitChildren(node, context, level);
      case 'test_command':
        testCommandDoubts(this, node);
        return this.visitChildren(node, context, level);
      case 'array':
        for (const child of childrenOf(node)) {
          const index = /^\[([^\]]*)\]\+?=/.exec(child.text)?.[1];
          if (index !== undefined && !/^\d+$/.test(index)) this.doubt(`an array subscript that is evaluated: ${quote(node.text)}`);
        }
        return this.visitChildren(node, context, level);
      default:
        if (TRANSPARENT.has(node.type)) return this.visitChildren(node, context, level);
        return this.doubt(`unhandled construct ${node.type} in ${quote(node.text)}`);
    }
  }

  /**
   * The text of `node` that none of its children covers (for a leaf, all of it): if it holds
   * the start of a substitution, bash runs something the grammar gave no node for
   * (`${x:-\`rm x\`}`, an unquoted heredoc line `\`rm x\``).
   */
  private unparsed(node: SyntaxNode): void {
    // the gaps between children, read from the source by index: linear in the text, however deep the tree
    let own = '';
    let cursor = node.startIndex;
    for (const child of childrenOf(node)) {
      if (child.endIndex <= child.startIndex) continue;
      if (child.startIndex > cursor) own += `${this.source.slice(cursor, child.startIndex)} `;
      cursor = Math.max(cursor, child.endIndex);
    }
    if (node.endIndex > cursor) own += this.source.slice(cursor, node.endIndex);
    if (holdsSubstitution(own)) this.doubt(`a substitution the analysis cannot parse in ${quote(node.text)}`);
  }

  /** A heredoc: its body is text when its delimiter is quoted (`<<'EOF'`), else expanded like a double-quoted string. */
  private heredoc(node: SyntaxNode, context: Context, level: number): void {
    const start = childrenOf(node).find((child) => child.type === 'heredoc_start');
    const quoted = start !== undefined && /['"\\]/.test(start.text);
    for (const child of childrenOf(node)) {
      if (!(quoted && child.type === 'heredoc_body')) this.visit(child, context, level + 1);
    }
  }

  private visitChildren(node: SyntaxNode, context: Context, level: number): void {
    for (const child of childrenOf(node)) this.visit(child, context, level + 1);
  }

  /** `export A=1`, `local x`, `unset a`: builtins the grammar gives their own node, recorded as commands. */
  private builtin(node: SyntaxNode, context: Context): void {
    const children = childrenOf(node);
    // the keyword and bare names are static words; resolveWord reads only the grammar's word nodes
    const words = children.map((child): Word => (child.type === 'variable_name' || !child.isNamed ? { text: child.text, isStatic: true, node: child } : resolveWord(child)));
    this.record(words, context.wrappers, context, node.text, context.wrapperWords);
    if (node.type !== 'declaration_command') return;
    const keyword = children[0]?.text ?? '';
    const flags = words.slice(1).filter((word) => word.isStatic && /^[-+]/.test(word.text)).map((word) => word.text);
    const names = children.slice(1).filter((child) => child.type !== 'variable_assignment' && !(child.type === 'word' && /^[-+]/.test(child.text)));
    const dynamic = names.some((child) => child.type !== 'variable_name' && !(child.type === 'word' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(child.text)));
    const reason = evaluatedDeclaration(keyword, flags, dynamic);
    if (reason !== undefined) this.doubt(`${reason}: ${quote(node.text)}`);
    // `export NAME`, `declare -x NAME=v`: NAME goes into the environment of every later command
    if (keyword === 'export' || flags.some((flag) => /^-[^-]*x/.test(flag))) {
      if (flags.some((flag) => /^-[^-]*[nf]/.test(flag))) return;
      for (const child of children.slice(1)) {
        const name = child.type === 'variable_assignment' ? /^[A-Za-z_][A-Za-z0-9_]*/.exec(child.text)?.[0] : child.type === 'variable_name' ? child.text : undefined;
        if (name !== undefined && !isSafeEnvironmentName(name)) this.doubt(`${name} is exported, and programs read their environment as configuration: ${quote(node.text)}`);
      }
    }
  }

  /** A redirected statement: its writes go to the commands of its body. */
  private redirected(node: SyntaxNode, context: Context, level: number): void {
    const redirects: SyntaxNode[] = [];
    let body: SyntaxNode | undefined;
    for (let i = 0; i < node.childCount; i += 1) {
      const child = node.child(i);
      if (child === null) continue;
      const field = node.fieldNameForChild(i);
      if (field === 'body') body = child;
      else if (field === 'redirect') redirects.push(child);
      else this.visit(child, context, level + 1);
    }
    const feeding = redirects.filter(feedsInput);
    const fedText = body?.type === 'command' && feeding.length === 1 ? literalFeed(feeding[0]!) : undefined;
    const { fedText: _outer, ...rest } = context;
    // a command and its redirections read the loop variables alike, once per reading (`loop-bindings.ts`)
    const readings = body?.type === 'command' ? readingsOf(node, context.bindings) : [undefined];
    for (const [n, reading] of readings.entries()) {
      const writes = [...context.writes];
      const reads = [...(context.reads ?? [])];
      const extraWords: SyntaxNode[] = [];
      for (const redirect of redirects) this.redirect(redirect, writes, reads, extraWords, reading);
      const inner = { ...rest, writes, reads, ...(feeding.length > 0 && { fedInput: true }), ...(fedText !== undefined && { fedText }) };
      if (body?.type === 'command') this.command(body, inner, extraWords, level + 1, [reading], n === 0);
      else {
        if (extraWords.length > 0) this.doubt(`words after a redirection of a compound command: ${quote(node.text)}`);
        if (body !== undefined) this.visit(body, inner, level + 1);
        else if (writes.length > context.writes.length) this.doubt(`a redirection without a command writes ${quote(node.text)}`);
      }
    }
    for (const redirect of redirects) this.visit(redirect, context, level + 1);
  }

  /**
   * Records what a redirection writes into `writes`; words the grammar hangs on it after its
   * target (`echo a > f b`: `b` is echo's) go to `extraWords`.
   */
  private redirect(node: SyntaxNode, writes: string[], reads: string[], extraWords: SyntaxNode[], reading?: LoopReading): void {
    if (node.type === 'heredoc_redirect') {
      for (const child of childrenOf(node)) if (child.type === 'file_redirect') this.redirect(child, writes, reads, extraWords, reading);
      return;
    }
    if (node.type !== 'file_redirect') return;
    let operator: string | undefined;
    let target: Word | undefined;
    for (let i = 0; i < node.childCount; i += 1) {
      const child = node.child(i);
      if (child === null) continue;
      if (node.fieldNameForChild(i) === 'destination') {
        if (target === undefined) target = readWord(child, reading);
        else extraWords.push(child);
      } else if (!child.isNamed && operator === undefined) operator = child.type;
    }
    if (operator === undefined || target === undefined) return;
    // bash itself opens a connection for /dev/tcp/HOST/PORT and /dev/udp/...: whatever the program
    if (target.isStatic && /^\/dev\/(tcp|udp)\//.test(target.text)) this.doubt(`a redirect to ${quote(target.text)} (bash connects to another machine)`);
    else if (!target.isStatic && !WRITING_REDIRECTS.has(operator)) this.doubt(`a redirect from ${quote(target.text)}, a path computed when the line runs (it may be /dev/tcp/...)`);
    // (a computed target of a writing redirect is a write, which no command rule allows either)
    // `< f`, `0< f`, `<> f` open f for reading: it is judged by path rules like a word
    if ((operator === '<' || operator === '<>') && !reads.includes(target.text)) reads.push(target.text);
    if (!WRITING_REDIRECTS.has(operator)) return;
    if (operator === '>&' && /^(\d+|-)$/.test(target.text)) return;
    if (target.isStatic && target.text === '/dev/null') return;
    if (!writes.includes(target.text)) writes.push(target.text);
  }

  /** A simple command: its words resolved, wrappers unwrapped, substitutions in it walked. */
  private command(node: SyntaxNode, context: Context, extraWords: readonly SyntaxNode[], level: number, readings = readingsOf(node, context.bindings), parts = true): void {
    const feeding = childrenOf(node).filter(feedsInput);
    const fedText = feeding.length === 1 ? literalFeed(feeding[0]!) : feeding.length === 0 ? context.fedText : undefined;
    const { fedText: _outer, ...rest } = context;
    // once per reading of the loop variables it uses (`loop-bindings.ts`)
    for (const reading of readings) {
      const writes = [...context.writes];
      const reads = [...(context.reads ?? [])];
      const wordNodes: SyntaxNode[] = [];
      for (let i = 0; i < node.childCount; i += 1) {
        const child = node.child(i);
        if (child === null) continue;
        const field = node.fieldNameForChild(i);
        if (field === 'name') {
          const name = child.childCount === 1 ? child.child(0) : child;
          if (name !== null && !name.isMissing) wordNodes.unshift(name);
        } else if (field === 'argument') wordNodes.push(child);
        else if (field === 'redirect') this.redirect(child, writes, reads, wordNodes, reading);
        else if (child.type === 'variable_assignment') this.assignment(child, 'environment', node.text);
      }
      const words = [...wordNodes, ...extraWords].map((word) => readWord(word, reading));
      this.run(words, { ...rest, writes, reads, ...(feeding.length > 0 && { fedInput: true }), ...(fedText !== undefined && { fedText }) }, node.text);
    }
    if (!parts) return;
    context = rest;
    // prefix assignments were checked above as environment; their values may hold substitutions
    for (const child of childrenOf(node)) {
      if (child.type === 'variable_assignment') this.visitChildren(child, context, level + 1);
      else this.visit(child, context, level + 1);
    }
    for (const word of extraWords) this.visit(word, context, level + 1);
  }

  /** Unwraps wrappers, shells, `eval` and `source` around `words`, and records what runs. */
  run(words: readonly Word[], context: Context, text: string): void {
    const wrappers = [...context.wrappers];
    const wrapperWords = new Map(context.wrapperWords);
    let argv = words;
    for (;;) {
      const head = argv[0];
      if (head === undefined) return;
      if (!head.isStatic) {
        this.doubt(`dynamic program name ${quote(head.text)}`);
        return this.record(argv, wrappers, context, text, wrapperWords);
      }
      const program = basename(head.text);
      // reserved words the grammar reads as a program: before a compound command (`coproc NAME { ...; }`,
      // `time { ...; }`) it splits that command at its first `;`
      if ((program === 'coproc' || program === 'time') && argv.slice(1, 3).some((word) => COMPOUND_STARTS.has(word.text) || /^[({]/.test(word.text))) {
        this.doubt(`${program} with a compound command the analysis does not parse: ${quote(text)}`);
        return this.record(argv, wrappers, context, text, wrapperWords);
      }
      if (isWrapper(program)) {
        const unwrapped = unwrapOnce([program, ...argv.slice(1).map((word) => word.text)]);
        if (unwrapped.kind === 'shell-text') {
          const command = argv[unwrapped.index];
          if (command === undefined || !command.isStatic || argv.slice(1, unwrapped.index).some((word) => !word.isStatic)) {
            this.doubt(`${program} runs a command string that is not static: ${quote(text)}`);
            return this.record(argv, wrappers, context, text, wrapperWords);
          }
          return this.line(command.text, { depth: context.depth + 1, writes: context.writes, reads: context.reads, wrappers: [...wrappers, program], wrapperWords, loopWords: context.loopWords });
        }
        if (unwrapped.kind !== 'inner') {
          if (unwrapped.kind === 'stdin-shell') this.doubt(`${program} starts a shell reading commands from standard input`);
          return this.record(argv, wrappers, context, text, wrapperWords);
        }
        const consumed = argv.slice(1, unwrapped.start);
        if (wrapperChangesFolder(program, consumed)) this.changedFolder = true;
        // an unquoted expansion among the wrapper's own words may split into several (or none),
        // shifting where the command starts: `timeout $T rm x` with T='5 curl evil'
        if (consumed.some((word) => !word.isStatic && word.node?.type !== 'string')) {
          this.doubt(`${program} has arguments that are not static before its command: ${quote(text)}`);
        }
        // option values (`unshare --mount=/x`) are not assignments; env's and sudo's NAME=VALUE words are
        for (const word of consumed) if (!word.text.startsWith('-')) checkAssignment(this, word.text, text, takesAssignments(program) ? 'environment' : 'statement');
        let inner = argv.slice(unwrapped.start);
        if (program === 'xargs') xargsPastes(this, consumed, inner, text);
        if (unwrapped.prefix !== undefined) {
          const split = argv[unwrapped.prefix.index]?.isStatic === true ? splitWords(this.parse, unwrapped.prefix.value) : undefined;
          // env reads the split words as its own: options and NAME=VALUE words there are not commands
          if (split?.some((word, index) => index === 0 && (/^-/.test(word.text) || word.text.includes('='))) === true) {
            this.doubt(`${program} splits a command string that starts with options or assignments: ${quote(text)}`);
            return this.record(argv, wrappers, context, text, wrapperWords);
          }
          if (split === undefined) {
            this.doubt(`${program} splits a command string the analysis cannot read: ${quote(text)}`);
            return this.record(argv, wrappers, context, text, wrapperWords);
          }
          inner = [...split, ...inner];
        }
        wrapperWords.set(wrappers.length, [program, ...consumed.map((word) => word.text)]);
        wrappers.push(program);
        argv = inner;
        if (wrappers.length > 32) return this.limit(`too many wrappers in ${quote(text)}`);
        continue;
      }
      if (UNANALYSED_RUNNERS.has(program) || isProgramLoader(program) || (program === 'coreutils' && argv.length > 1)) {
        this.doubt(`${program} runs another command that is not analysed: ${quote(text)}`);
        return this.record(argv, wrappers, context, text, wrapperWords);
      }
      const runs = runsCommandsFromText(program, argv.slice(1).map((word) => (word.isStatic ? word.text : undefined)));
      if (runs !== undefined) this.doubt(`${runs}: ${quote(text)}`);
      if (readsCodeFromStdin(program, argv.slice(1).map((word) => (word.isStatic ? word.text : undefined)))) this.readsInput(`${program} reads code`, context, text);
      const fedCode = runsFedCode(program, argv.slice(1).map((word) => (word.isStatic ? word.text : undefined)), context.fedInput === true, context.fedText);
      if (fedCode !== undefined) this.doubt(`${fedCode}: ${quote(text)}`);
      if (SHELLS.has(program)) return shell(this, program, argv, { ...context, wrappers, wrapperWords }, text);
      if (program === 'eval') return evaluate(this, argv, { ...context, wrappers, wrapperWords }, text);
      if (program === 'trap') return trap(this, argv, { ...context, wrappers, wrapperWords }, text);
      if (program === 'alias') return alias(this, argv, { ...context, wrappers, wrapperWords }, text);
      if (program === 'su') return switchUser(this, argv, { ...context, wrappers, wrapperWords }, text);
      if (SOURCE_BUILTINS.has(program)) {
        const script = argv[1];
        if (script !== undefined && (script.node?.type === 'process_substitution' || (script.isStatic && isStdinPath(script.text)))) {
          this.doubt(`${program} reads commands the analysis cannot see: ${quote(text)}`);
        } else if (script !== undefined) {
          // Like `bash FILE`: the commands are in a file, which may have been written a moment ago.
          this.doubt(`${program} runs the commands of a script file the analysis does not read: ${quote(text)}`);
        }
        return this.record(argv, wrappers, context, text, wrapperWords);
      }
      this.record(argv, wrappers, context, text, wrapperWords);
      this.optionCommands(program, argv, { ...context, wrappers, wrapperWords }, text);
      if (program === 'find') findExec(this, argv, { ...context, writes: [], wrappers: [...wrappers, 'find'], wrapperWords }, text);
      return;
    }
  }

  /** Command lines and files of commands a program's own options make it run (`command-options.ts`): walked as nested lines, or a doubt. */
  private optionCommands(program: string, argv: readonly Word[], context: Context, text: string): void {
    const from = program === 'git' ? argv.length - (normaliseGit(argv.map((word) => word.text)).argv.length - 1) : 1;
    const found = commandsInOptions(program, argv.slice(from).map((word) => (word.isStatic ? word.text : undefined)));
    if (found.doubt !== undefined) this.doubt(`${found.doubt}: ${quote(text)}`);
    for (const line of found.lines) this.line(line, { depth: context.depth + 1, writes: [], wrappers: [...context.wrappers, program], ...(context.wrapperWords !== undefined && { wrapperWords: context.wrapperWords }), loopWords: context.loopWords });
  }

  /** A `NAME=value` node: its name per {@link checkAssignment}; a static value holding code (`x='a[$(rm x)]'`) is uncertain, since later arithmetic or `${x@P}` runs it. */
  private assignment(node: SyntaxNode, use: AssignmentUse, text = node.text): void {
    checkAssignment(this, node.text, text, use);
    for (let i = 0; i < node.childCount; i += 1) {
      const child = node.child(i);
      if (child === null || node.fieldNameForChild(i) !== 'value') continue;
      const value = resolveWord(child);
      if (value.isStatic && holdsCode(value.text)) this.doubt(`a value holding a substitution that later evaluation would run: ${quote(node.text)}`);
      if (value.isStatic && value.text.includes('\0')) this.doubt(`a NUL character in ${quote(node.text)}`);
    }
  }

  record(argv: readonly Word[], wrappers: readonly string[], { writes, reads, loopWords }: Pick<Context, 'writes' | 'reads' | 'loopWords'>, text: string, wrapperWords?: ReadonlyMap<number, readonly string[]>): void {
    const head = argv[0]!;
    const program = head.isStatic ? basename(head.text) : head.text;
    if (head.isStatic && RESERVED_WORDS.has(head.text)) this.limit(`the parser read the reserved word ${quote(head.text)} as a program in ${quote(text)}: what bash runs there is unknown`);
    let words = [program, ...argv.slice(1).map((word) => word.text)];
    // bash passes a word only up to a NUL (`$'rm\0x'` runs rm)
    if (argv.some((word) => word.isStatic && word.text.includes('\0'))) this.doubt(`a word with a NUL character in ${quote(text)}`);
    if (argv.slice(1).some((word) => word.isStatic && holdsCode(word.text))) {
      this.doubt(`a word holding a substitution that later evaluation would run: ${quote(text)}`);
    }
    const evaluated = evaluatedWords(program, argv);
    if (evaluated !== undefined) this.doubt(`${evaluated}: ${quote(text)}`);
    if (hasDynamicSubcommand(argv, program)) this.doubt(`${program} with a subcommand that is not static: ${quote(text)}`);
    if (changesFolder(program)) this.changedFolder = true;
    let globalWords: string[] | undefined;
    if (program === 'git') {
      const git = normaliseGit(words);
      globalWords = words.slice(1, words.length - (git.argv.length - 1));
      words = git.argv;
      for (const reason of git.uncertain) this.doubt(reason);
    }
    const kind = kindOfCommand(words);
    // a path (`./git`) is kept as written, so that a rule for `git` does not allow it
    if (head.isStatic && isPath(head.text)) words[0] = head.text;
    if (this.commands.length >= MAX_COMMANDS) return this.limit(`more than ${MAX_COMMANDS} commands in one command line`);
    const own = wrappers.map((name, i) => wrapperWords?.get(i) ?? [name]);
    // argv indices of the words that are not static (after git's global options are dropped)
    const dropped = globalWords?.length ?? 0;
    const dynamicWords: number[] = [];
    for (let i = 1; i < argv.length; i++) if (!argv[i]!.isStatic && i > dropped) dynamicWords.push(i - dropped);
    this.commands.push({
      argv: words, program, wrappers: [...wrappers], kind, writes: [...writes], text,
      ...(reads !== undefined && reads.length > 0 && { reads: [...reads] }),
      ...(loopWords !== undefined && loopWords.length > 0 && { loopWords: [...loopWords] }),
      ...(wrappers.length > 0 && { wrapperWords: own }),
      ...(globalWords !== undefined && globalWords.length > 0 && { globalWords }),
      ...(dynamicWords.length > 0 && { dynamicWords }),
    });
  }
}
