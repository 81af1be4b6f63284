/**
 * Input a command line feeds a command itself (a heredoc, a here-string, a `<` file, a pipe
 * from `echo`): which redirections feed it, and the literal text when the line gives it
 * whole, so a shell reading it can have it analysed like `bash -c` text (case C6).
 *
 * @module
 */
import { childrenOf, resolveWord, type SyntaxNode } from './words.js';

/** Whether a redirection feeds the command's standard input: a heredoc, a here-string, `< file`. */
export function feedsInput(redirect: SyntaxNode): boolean {
  if (redirect.type === 'heredoc_redirect' || redirect.type === 'herestring_redirect') return true;
  return redirect.type === 'file_redirect' && childrenOf(redirect).some((child) => !child.isNamed && child.type.startsWith('<'));
}

/** The literal text a redirection feeds: a heredoc's body when its delimiter is quoted, a static here-string (with bash's newline). */
export function literalFeed(redirect: SyntaxNode): string | undefined {
  const children = childrenOf(redirect);
  if (redirect.type === 'heredoc_redirect') {
    const start = children.find((child) => child.type === 'heredoc_start');
    if (start === undefined || !/['"\\]/.test(start.text)) return undefined;
    return children.find((child) => child.type === 'heredoc_body')?.text ?? '';
  }
  if (redirect.type !== 'herestring_redirect') return undefined;
  const words = children.filter((child) => child.isNamed);
  if (words.length !== 1) return undefined;
  const word = resolveWord(words[0]!);
  return word.isStatic ? `${word.text}\n` : undefined;
}

/** What `echo` with static words and no option writes (`echo 'curl x' | bash`); undefined for anything else. */
export function echoedText(node: SyntaxNode): string | undefined {
  if (node.type !== 'command') return undefined;
  const words: string[] = [];
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    if (child === null) continue;
    const field = node.fieldNameForChild(i);
    if (field !== 'name' && field !== 'argument') return undefined;
    const word = resolveWord(field === 'name' && child.childCount === 1 ? child.child(0)! : child);
    if (!word.isStatic) return undefined;
    words.push(word.text);
  }
  if (words[0] !== 'echo' || words.slice(1).some((w) => w.startsWith('-'))) return undefined;
  return `${words.slice(1).join(' ')}\n`;
}
