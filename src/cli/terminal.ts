/**
 * The terminal side of the CLI: text made safe to print, the confirmation question, and
 * reading stdin.
 *
 * @module
 */
import readline from 'node:readline/promises';
import type { ApprovalAnswer, ConfirmationRequest } from '../decisions/approval.js';
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

/**
 * The confirmation question: why it asks, the target paths first and whole, then each
 * argument, long values cut, then the answers the request offers.
 */
export function confirmationPrompt(request: ConfirmationRequest): string {
  const lines = [`${request.tool} ${request.version} asks to run: ${terminalSafe(request.ask.reason, false)}`];
  for (const p of request.paths) lines.push(`  target: ${terminalSafe(p, false)}`);
  for (const [key, value] of Object.entries(request.arguments)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
    const shown = text.length > 300 ? `${text.slice(0, 300)}... (${text.length} characters)` : text;
    lines.push(`  ${terminalSafe(key, false)}: ${terminalSafe(shown, false)}`);
  }
  const choices = ANSWER_KEYS.filter((a) => request.offers.includes(a.answer)).map((a) => a.shown);
  return `${lines.join('\n')}\nAllow? ${choices.join(' / ')} / [N]o `;
}

/** The answer typed: one the request offers, else `deny`. */
export function answerOf(typed: string, request: ConfirmationRequest): ApprovalAnswer {
  const found = ANSWER_KEYS.find((a) => a.keys.test(typed.trim()));
  return found !== undefined && request.offers.includes(found.answer) ? found.answer : 'deny';
}

/** Ask the confirmation question on the terminal (prompt on stderr). */
export async function askOnTty(io: CliIo, request: ConfirmationRequest): Promise<ApprovalAnswer> {
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    return answerOf(await rl.question(confirmationPrompt(request)), request);
  } finally {
    rl.close();
  }
}

/** All of stdin as UTF-8 text. */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
