/**
 * The terminal side of the CLI: text made safe to print, the confirmation question, and
 * reading stdin.
 *
 * @module
 */
import readline from 'node:readline/promises';
import type { ApprovalAnswer, ConfirmationContext, ConfirmationRequest } from '../decisions/approval.js';
import { moreQuestions, questionLabel, shownOthers } from '../decisions/asked-questions.js';
import { indentLines, shownArguments, visibleText, wholeArguments } from '../decisions/shown-arguments.js';
import type { CliIo } from './context.js';

/**
 * Text safe to print on a terminal: control characters (escape sequences), and the bidi and
 * zero-width characters that can make text read differently than it is, shown as `\u{...}`.
 */
export function terminalSafe(text: string, keepNewlines = true): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]|\n|\t/g, (c) => {
    if ((c === '\n' && keepNewlines) || c === '\t') return c;
    return `\\u{${c.codePointAt(0)!.toString(16)}}`;
  });
}

/** The keys a person types for each answer, and how the question shows them. */
const ANSWER_KEYS: ReadonlyArray<{ answer: ApprovalAnswer; keys: RegExp; shown: string }> = [
  { answer: 'allow_once', keys: /^y(es)?$/i, shown: '[y]es once' },
  { answer: 'allow_for_turn', keys: /^t(urn)?$/i, shown: '[t]his turn' },
  { answer: 'always', keys: /^a(lways)?$/i, shown: '[a]lways' },
];


/** Where else the question can be answered (the CLI names its own `toolgate approvals` flags). */
export interface AnswerElsewhere {
  /** The command that answers question `id` from another terminal, e.g. `toolgate approvals allow 3`. */
  command(id: number): string;
}

/**
 * The confirmation question: why it asks (every question of the call: the first, then one
 * `also` line for each other, at most `MAX_SHOWN_QUESTIONS` in all, then how many more), the
 * target paths first and whole, then each
 * argument ({@link shownArguments}: escaped, a text's lines kept as lines and indented, a long
 * value shown as head and tail with what is omitted counted, a command whole unless enormous),
 * then a note (a warning for a command) when anything is cut, with the `[v]iew` answer that
 * prints every argument whole, then the question's id and where else to answer it (when it is
 * stored in a ledger), then the answers the request offers.
 */
export function confirmationPrompt(request: ConfirmationRequest, context?: ConfirmationContext, elsewhere?: AnswerElsewhere): string {
  const lines = [`${request.tool} ${request.version} asks to run: ${visibleText(request.ask.reason, false)}`];
  // the answer answers every question of the call: each is shown (at most MAX_SHOWN_QUESTIONS, then how many more)
  const others = shownOthers(request.also);
  for (const q of others.shown) lines.push(`  also (${visibleText(questionLabel(q), false)}): ${visibleText(q.reason, false)}`);
  if (others.more > 0) {
    const where = context?.questionId === undefined ? 'not shown here' : `toolgate approvals show ${context.questionId} prints every one`;
    lines.push(`  and ${moreQuestions(others.more)} (${where}): your answer answers them too.`);
  }
  for (const p of request.paths) lines.push(`  target: ${visibleText(p, false)}`);
  const shown = shownArguments(request.arguments, request.commandArguments);
  for (const { key, value } of shown.entries) lines.push(`  ${key}: ${indentLines(value.text)}`);
  for (const { key, value, command } of shown.entries) {
    if (!command || (value.omittedChars === 0 && value.omittedLines === 0)) continue;
    lines.push(`WARNING: ${key} is ${value.length} characters long and cannot be shown whole here: answer v to read all of it before you allow it.`);
  }
  if (shown.cut.length > shown.cutCommands.length) {
    lines.push(`Cut above (the middle left out): ${shown.cut.filter((k) => !shown.cutCommands.includes(k)).join(', ')}; answer v to view every argument whole.`);
  }
  const id = context?.questionId;
  if (id !== undefined) {
    lines.push(`Question ${id}${elsewhere === undefined ? '' : `: answer here, or from another terminal with ${elsewhere.command(id)} (deny likewise), or in the cockpit`}.`);
  }
  const choices = ANSWER_KEYS.filter((a) => request.offers.includes(a.answer)).map((a) => a.shown);
  if (shown.cut.length > 0) choices.push('[v]iew whole');
  return `${lines.join('\n')}\nAllow? ${choices.join(' / ')} / [N]o `;
}

/** What the `[v]iew` answer prints: the call's every argument whole, escaped, then the question again. */
function wholeView(request: ConfirmationRequest): string {
  const size = [...JSON.stringify(request.arguments)].length;
  return `--- ${request.tool} ${request.version}: every argument whole (${size} characters as JSON) ---\n${wholeArguments(request.arguments)}\n--- end of the arguments ---\n`;
}

/** Whether `typed` asks to view the arguments whole (`v`, `view`). */
function isViewAnswer(typed: string): boolean {
  return /^v(iew)?$/i.test(typed.trim());
}

/** The answer typed: one the request offers, else `deny`. */
function answerOf(typed: string, request: ConfirmationRequest): ApprovalAnswer {
  const found = ANSWER_KEYS.find((a) => a.keys.test(typed.trim()));
  return found !== undefined && request.offers.includes(found.answer) ? found.answer : 'deny';
}

/**
 * Ask the confirmation question with `question` until the answer is not `v`/`view` (which
 * prints every argument whole on `out`, then asks again).
 */
export async function askUntilAnswered(
  question: (prompt: string) => Promise<string>, out: NodeJS.WritableStream, request: ConfirmationRequest, context?: ConfirmationContext, elsewhere?: AnswerElsewhere,
): Promise<ApprovalAnswer> {
  for (;;) {
    const typed = await question(confirmationPrompt(request, context, elsewhere));
    if (!isViewAnswer(typed)) return answerOf(typed, request);
    out.write(wholeView(request));
  }
}

/**
 * Ask the confirmation question on the terminal (prompt on stderr). When the context's signal
 * aborts (the question was answered elsewhere: `toolgate approvals`, the cockpit), the prompt
 * stops waiting, says so, and lets go of the terminal, so that the process can exit once the
 * call is done; the answer it then resolves to (`deny`) is not used.
 */
export async function askOnTty(io: CliIo, request: ConfirmationRequest, context?: ConfirmationContext, elsewhere?: AnswerElsewhere): Promise<ApprovalAnswer> {
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  const { signal } = context ?? {};
  try {
    if (signal?.aborted) return 'deny';
    return await askUntilAnswered((prompt) => rl.question(prompt, signal === undefined ? {} : { signal }), io.stderr, request, context, elsewhere);
  } catch (error) {
    if (signal?.aborted) {
      io.stderr.write('(answered elsewhere)\n');
      return 'deny';
    }
    throw error;
  } finally {
    rl.close();
    // readline resumed the terminal's input to read the answer: pause it again, or it keeps
    // the process alive after the call (a process's stdin stays open until it ends).
    io.stdin.pause();
  }
}

/** All of stdin as UTF-8 text. */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
