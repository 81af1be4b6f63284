/**
 * The terminal side of the CLI: text made safe to print, the confirmation question, and
 * reading stdin.
 *
 * @module
 */
import readline from 'node:readline/promises';
import type { ConfirmationRequest } from '../decisions/approval.js';
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

/** The confirmation question: the target paths first and whole, then each argument, long values cut. */
export function confirmationPrompt(request: ConfirmationRequest): string {
  const lines = [`${request.tool} ${request.version} asks to run.`];
  for (const p of request.paths) lines.push(`  target: ${terminalSafe(p, false)}`);
  for (const [key, value] of Object.entries(request.arguments)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
    const shown = text.length > 300 ? `${text.slice(0, 300)}... (${text.length} characters)` : text;
    lines.push(`  ${terminalSafe(key, false)}: ${terminalSafe(shown, false)}`);
  }
  return `${lines.join('\n')}\nAllow? [y/N] `;
}

/** Ask the confirmation question on the terminal (prompt on stderr); true on `y` or `yes`. */
export async function askOnTty(io: CliIo, request: ConfirmationRequest): Promise<boolean> {
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    const answer = await rl.question(confirmationPrompt(request));
    return /^y(es)?$/i.test(answer.trim());
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
