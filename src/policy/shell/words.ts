/**
 * Shell words as the program would get them: quotes removed from static words, anything that
 * expands kept as written. Works on the syntax nodes of the tree-sitter-bash grammar (0.25)
 * through {@link SyntaxNode}, so only `analyze.ts` imports the parser.
 *
 * @module
 */

/** The part of a tree-sitter syntax node the analysis reads (web-tree-sitter's `Node` has it). */
export interface SyntaxNode {
  /** The grammar's node type (`command`, `word`, `ERROR`...) or, for anonymous nodes, the token (`&&`). */
  readonly type: string;
  /** Its source text. */
  readonly text: string;
  /** Where it starts in the parsed text, in UTF-16 code units (web-tree-sitter parses JavaScript strings as UTF-16). */
  readonly startIndex: number;
  /** Where it ends in the parsed text (exclusive), in UTF-16 code units. */
  readonly endIndex: number;
  /** Whether it is a named node of the grammar (false for punctuation and keywords). */
  readonly isNamed: boolean;
  /** Whether the parser inserted it to recover from an error (a zero-width node). */
  readonly isMissing: boolean;
  /** Its number of children, anonymous ones included. */
  readonly childCount: number;
  /** All its children at once, when the parser gives them (web-tree-sitter does, in one call: `child(i)` walks from the first child, so a loop over it is quadratic). */
  readonly children?: readonly (SyntaxNode | null)[];
  /** The child at `index`, or null. */
  child(index: number): SyntaxNode | null;
  /** The grammar field the child at `index` fills (`name`, `argument`, `redirect`...), or null. */
  fieldNameForChild(index: number): string | null;
}

/** One word of a command. */
export interface Word {
  /** The word with quotes removed when {@link Word.isStatic}, else as written. */
  readonly text: string;
  /** Whether the word is the same on every run: no expansion, substitution, glob or brace expansion. */
  readonly isStatic: boolean;
  /** The node it came from (absent for words made by the analysis, such as `env -S` splits). */
  readonly node?: SyntaxNode;
}

/** The children of `node`, anonymous ones included. */
export function childrenOf(node: SyntaxNode): SyntaxNode[] {
  if (node.children !== undefined) return node.children.filter((child): child is SyntaxNode => child !== null);
  const children: SyntaxNode[] = [];
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    if (child !== null) children.push(child);
  }
  return children;
}

const GLOB = /(^|[^\\])(\\\\)*[*?[]/;
const BRACES = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** The word a node of the grammar stands for (an argument, a command name, a redirect target). */
export function resolveWord(node: SyntaxNode): Word {
  const value = staticValue(node);
  return value === undefined ? { text: node.text, isStatic: false, node } : { text: value, isStatic: true, node };
}

/** Whether unquoted word text holds a glob character (`*`, `?`, `[`) that is not escaped. */
export function hasGlob(text: string): boolean {
  return GLOB.test(text);
}

/** The static text a node stands for (quotes removed), or undefined when it expands (see {@link resolveWord}). */
export function staticText(node: SyntaxNode): string | undefined {
  return staticValue(node);
}

function staticValue(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'word':
      return GLOB.test(node.text) ? undefined : unescapeBare(node.text);
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'string': {
      let value = '';
      for (const child of childrenOf(node)) {
        if (child.type === '"') continue;
        if (child.type !== 'string_content') return undefined;
        value += child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
      }
      return value;
    }
    case 'concatenation': {
      if (BRACES.test(node.text)) return undefined;
      let value = '';
      for (const child of childrenOf(node)) {
        const part = staticValue(child);
        if (part === undefined) return undefined;
        value += part;
      }
      return value;
    }
    default:
      return undefined;
  }
}

/** Removes backslash escapes from an unquoted word (a backslash-newline joins lines). */
function unescapeBare(text: string): string {
  return text.includes('\\') ? text.replace(/\\(.|\n)/gs, (_, c: string) => (c === '\n' ? '' : c)) : text;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Decodes the body of a `$'...'` word (bash's ANSI-C quoting). */
function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs, (whole, esc: string) => {
    const head = esc[0]!;
    if (head === 'x' || head === 'u' || head === 'U') {
      const code = parseInt(esc.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8) & 0xff);
    if (head === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
    return SIMPLE_ESCAPES[head] ?? whole;
  });
}
