/**
 * The terminal side of the CLI: text made safe to print, the confirmation question, and
 * reading stdin.
 *
 * @module
 */
import readline from 'node:readline/promises';
import type { ApprovalAnswer, ConfirmationContext, ConfirmationRequest } from '../decisions/approval.js';
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

/** Lines of one argument's value shown at most (a long text is cut there too). */
const MAX_VALUE_LINES = 12;

/**
 * One argument's value as the prompt shows it: control characters escaped, a newline kept as
 * a newline with the next line indented under the value (so that it cannot pass for a line of
 * the prompt), long values cut.
 */
function shownValue(text: string): string {
  let shown = text.length > 300 ? `${text.slice(0, 300)}... (${text.length} characters)` : text;
  const lines = shown.split(/\r?\n/);
  if (lines.length > MAX_VALUE_LINES) shown = `${lines.slice(0, MAX_VALUE_LINES).join('\n')}\n... (${lines.length} lines)`;
  // A tab would move the text out of its indent: shown escaped, as any other control character.
  return terminalSafe(shown.replace(/\r(?=\n)/g, ''), true).replace(/\t/g, '\\u{9}').replace(/\n/g, '\n    | ');
}

/** Where else the question can be answered (the CLI names its own `toolgate approvals` flags). */
export interface AnswerElsewhere {
  /** The command that answers question `id` from another terminal, e.g. `toolgate approvals allow 3`. */
  command(id: number): string;
}

/**
 * The confirmation question: why it asks, the target paths first and whole, then each
 * argument, long values cut (a text's lines kept as lines, indented), then the question's id
 * and where else to answer it (when it is stored in a ledger), then the answers the request offers.
 */
export function confirmationPrompt(request: ConfirmationRequest, context?: ConfirmationContext, elsewhere?: AnswerElsewhere): string {
  const lines = [`${request.tool} ${request.version} asks to run: ${terminalSafe(request.ask.reason, false)}`];
  for (const p of request.paths) lines.push(`  target: ${terminalSafe(p, false)}`);
  for (const [key, value] of Object.entries(request.arguments)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
    lines.push(`  ${terminalSafe(key, false)}: ${shownValue(text)}`);
  }
  if (context?.questionId !== undefined) {
    const id = context.questionId;
    lines.push(`Question ${id}${elsewhere === undefined ? '' : `: answer here, or from another terminal with ${elsewhere.command(id)} (deny likewise), or in the cockpit`}.`);
  }
  const choices = ANSWER_KEYS.filter((a) => request.offers.includes(a.answer)).map((a) => a.shown);
  return `${lines.join('\n')}\nAllow? ${choices.join(' / ')} / [N]o `;
}

/** The answer typed: one the request offers, else `deny`. */
export function answerOf(typed: string, request: ConfirmationRequest): ApprovalAnswer {
  const found = ANSWER_KEYS.find((a) => a.keys.test(typed.trim()));
  return found !== undefined && request.offers.includes(found.answer) ? found.answer : 'deny';
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
    return answerOf(await rl.question(confirmationPrompt(request, context, elsewhere), signal === undefined ? {} : { signal }), request);
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
