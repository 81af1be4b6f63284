/**
 * What the command-line walk (`command-line.ts`) knows about bash's syntax, as data: node
 * types of tree-sitter-bash's grammar it walks through or reads as literal, redirect
 * operators that write, variables that change what a program name runs, arithmetic
 * contexts, and bash's reserved words.
 *
 * @module
 */

/** Node types whose children are walked with nothing else to do (statements, expressions, word parts). */
export const TRANSPARENT: ReadonlySet<string> = new Set([
  'program', 'list', 'pipeline', 'subshell', 'compound_statement', 'do_group', 'if_statement', 'elif_clause', 'else_clause',
  'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement', 'case_item', 'negated_command',
  'function_definition', 'test_command', 'variable_assignment', 'variable_assignments', 'comment',
  'word', 'string', 'raw_string', 'ansi_c_string', 'translated_string', 'string_content', 'concatenation', 'simple_expansion',
  'expansion', 'arithmetic_expansion', 'number', 'array', 'binary_expression', 'unary_expression', 'ternary_expression',
  'parenthesized_expression', 'postfix_expression', 'variable_name', 'special_variable_name', 'subscript', 'test_operator',
  'regex', 'extglob_pattern', 'brace_expression', 'heredoc_body', 'heredoc_content', 'heredoc_start', 'heredoc_end',
  'file_descriptor', 'command_name', 'file_redirect', 'herestring_redirect', 'heredoc_redirect',
]);

/** Redirect operators that write their target file. `>&` writes only when its target is not a descriptor. */
export const WRITING_REDIRECTS: ReadonlySet<string> = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/**
 * Variables that change which file a program name runs or what runs before it: the search
 * path, the dynamic loader's preloads and library path, and the files a non-interactive
 * bash or sh sources first.
 */
export const LOOKUP_VARIABLES: ReadonlySet<string> = new Set(['PATH', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'BASH_ENV', 'ENV']);

/** Node types whose text bash does not expand (single quotes, `$'...'`, comments): their text is never checked for substitutions. */
export const LITERAL: ReadonlySet<string> = new Set(['raw_string', 'ansi_c_string', 'comment']);

/** Operators of `[[ ]]` that compare their operands as arithmetic expressions. */
export const ARITHMETIC_TESTS: ReadonlySet<string> = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** Node types that, inside an arithmetic expression, make bash evaluate a value (a variable's, a substitution's output) as more arithmetic. */
export const ARITHMETIC_VALUES: ReadonlySet<string> = new Set([
  'variable_name', 'simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'word', 'string', 'raw_string',
  'concatenation', 'subscript', 'special_variable_name',
]);

/** Compound keywords that `coproc NAME` may be followed by: bash then runs that compound command, which the grammar does not parse after coproc. */
export const COMPOUND_STARTS: ReadonlySet<string> = new Set(['{', '(', '((', 'while', 'until', 'for', 'if', 'case', 'select', '[[', 'function']);

/** `find` actions that run a command given in find's own arguments, up to `;` or `{} +`. */
export const FIND_EXEC_ACTIONS: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * bash's reserved words. None of them is ever a simple command's program name in a line bash
 * accepts as written: when the grammar gives one as a program name (`! { rm x; }` reads as
 * the commands `{ rm x` and `}`), it has misread the line, and the commands bash would run
 * are not the ones found, so the walk treats the line as one it cannot analyse.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  '!', '{', '}', '[[', ']]', 'case', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'function', 'if', 'in', 'select', 'then', 'until', 'while',
]);
