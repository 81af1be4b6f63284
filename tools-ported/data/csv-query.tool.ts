import { parse as parseCsvSync } from 'csv-parse/sync';
import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { loadInput } from './data-source.js';

/** Comparison operators of a csv_query condition. */
export type CsvOperator = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'contains' | 'not_contains' | 'starts_with' | 'ends_with' | 'in' | 'empty' | 'not_empty';

/** One condition on a column. */
export interface CsvCondition {
  /** Column name, as in the header row. */
  column: string;
  /**
   * eq/ne: equal or not (numerically when both sides are numbers, so "1.0" eq 1);
   * lt/le/gt/ge: numeric order when both are numbers, else text order (by code point), and never true for an empty cell;
   * contains/not_contains/starts_with/ends_with: text tests; in: equal to one of a list;
   * empty/not_empty: the cell is (not) empty or whitespace (no value needed).
   */
  op: CsvOperator;
  /** The value to compare with (a list for `in`; none for empty/not_empty). */
  value?: string | number | (string | number)[];
  /**
   * Compare text with case (for all text comparisons of this condition).
   * @default true
   */
  case_sensitive?: boolean;
}

/** Arguments of csv_query. */
export interface CsvQueryInput {
  /**
   * The CSV file (first row: column names), relative to the workspace root (or absolute
   * inside it). Up to 10 MiB, UTF-8.
   * @format workspace-path
   */
  filepath: string;
  /**
   * Conditions rows must meet (combined by `match`). None: every row.
   * @maxItems 20
   */
  where?: CsvCondition[];
  /**
   * Whether a row must meet all conditions or any one of them.
   * @default "all"
   */
  match?: 'all' | 'any';
  /**
   * Columns to return, in this order. Default: all columns.
   * @maxItems 200
   */
  columns?: string[];
  /** Sort matching rows by this column (numerically when all its values are numbers). */
  order_by?: string;
  /**
   * Sort in descending order (with order_by).
   * @default false
   */
  descending?: boolean;
  /**
   * Matching rows to skip before the first one returned (for paging).
   * @minimum 0
   * @default 0
   * @TJS-type integer
   */
  offset?: number;
  /**
   * Most rows returned.
   * @minimum 1
   * @maximum 1000
   * @default 50
   * @TJS-type integer
   */
  limit?: number;
  /**
   * Field separator: one character. Default: a tab for `.tsv` files, else a comma.
   * @minLength 1
   * @maxLength 1
   */
  delimiter?: string;
  /**
   * Most characters of row data returned (as JSON); rows past it are left out and counted.
   * @minimum 1000
   * @maximum 200000
   * @default 20000
   * @TJS-type integer
   */
  max_chars?: number;
}

/** What csv_query reports. */
export interface CsvQueryOutput {
  /** The file, relative to the workspace root. */
  filepath: string;
  /** The columns of the returned rows. */
  columns: string[];
  /** Data rows in the file (the header not counted). */
  total_rows: number;
  /** Rows that met the conditions. */
  matched_rows: number;
  /** Returned rows, each keyed by column name. */
  rows: Record<string, string>[];
  /** True when matching rows were left out (by limit or max_chars); use offset to page. */
  truncated: boolean;
  /** The offset to pass for the next page, when truncated. */
  next_offset?: number;
}

/**
 * Filter, select and sort the rows of a CSV (or TSV) file with structured conditions (column,
 * operator, value; no code or expressions are evaluated), and get matching rows as objects
 * keyed by column name, a page at a time. Use it to look into tables too large to read whole;
 * use convert_data to turn a CSV into JSON or YAML.
 */
@tool({ name: 'csv_query', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'data', tags: ['data', 'ported'], timeoutMs: 30_000, memoryMb: 512 })
export class CsvQueryTool implements Tool<CsvQueryInput, CsvQueryOutput> {
  run(args: CsvQueryInput, ctx: ToolContext): Promise<CsvQueryOutput> {
    return csvQuery(ctx.workspace, args);
  }
}

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

function asNumber(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  return NUMBER.test(text) ? Number(text) : undefined;
}

/** Header names made unique and non-empty (`column_3` for an empty one, `name_2` for a repeat). */
function headerNames(row: string[]): string[] {
  const seen = new Set<string>();
  return row.map((raw, i) => {
    let name = raw.trim() === '' ? `column_${i + 1}` : raw;
    for (let n = 2; seen.has(name); n++) name = `${raw}_${n}`;
    seen.add(name);
    return name;
  });
}

/** A compiled condition: a test of one row. */
type RowTest = (row: readonly string[]) => boolean;

function compileCondition(condition: CsvCondition, index: Map<string, number>, header: readonly string[]): RowTest {
  const column = index.get(condition.column);
  if (column === undefined) throw new ToolExecutionError(`no column ${JSON.stringify(condition.column)}; the columns are ${header.map((h) => JSON.stringify(h)).join(', ')}.`);
  const op = condition.op;
  const sensitive = condition.case_sensitive !== false;
  const fold = (s: string) => (sensitive ? s : s.toLowerCase());
  const cellOf = (row: readonly string[]) => row[column] ?? '';
  if (op === 'empty') return (row) => cellOf(row).trim() === '';
  if (op === 'not_empty') return (row) => cellOf(row).trim() !== '';
  const value = condition.value;
  if (value === undefined) throw new ToolExecutionError(`the condition on ${JSON.stringify(condition.column)} with op "${op}" needs a value.`);
  if (op === 'in') {
    if (!Array.isArray(value)) throw new ToolExecutionError(`the condition on ${JSON.stringify(condition.column)} with op "in" needs a list as its value, e.g. ["a", "b"].`);
    const tests = value.map((v) => equalTo(v, fold));
    return (row) => tests.some((t) => t(cellOf(row)));
  }
  if (Array.isArray(value)) throw new ToolExecutionError(`the condition on ${JSON.stringify(condition.column)} with op "${op}" needs a single value, not a list (use op "in" for a list).`);
  switch (op) {
    case 'eq': {
      const test = equalTo(value, fold);
      return (row) => test(cellOf(row));
    }
    case 'ne': {
      const test = equalTo(value, fold);
      return (row) => !test(cellOf(row));
    }
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      const want = asNumber(value);
      const wantText = fold(String(value));
      return (row) => {
        const cell = cellOf(row);
        if (cell.trim() === '') return false;
        const n = asNumber(cell);
        const order = want !== undefined && n !== undefined ? Math.sign(n - want) : compareText(fold(cell), wantText);
        return op === 'lt' ? order < 0 : op === 'le' ? order <= 0 : op === 'gt' ? order > 0 : order >= 0;
      };
    }
    case 'contains':
      return (row) => fold(cellOf(row)).includes(fold(String(value)));
    case 'not_contains':
      return (row) => !fold(cellOf(row)).includes(fold(String(value)));
    case 'starts_with':
      return (row) => fold(cellOf(row)).startsWith(fold(String(value)));
    case 'ends_with':
      return (row) => fold(cellOf(row)).endsWith(fold(String(value)));
    default:
      throw new ToolExecutionError(`unknown op ${JSON.stringify(op)}; use one of eq, ne, lt, le, gt, ge, contains, not_contains, starts_with, ends_with, in, empty, not_empty.`);
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function equalTo(value: string | number, fold: (s: string) => string): (cell: string) => boolean {
  const want = asNumber(value);
  const wantText = fold(String(value));
  return (cell) => {
    if (want !== undefined) {
      const n = asNumber(cell);
      if (n !== undefined) return n === want;
    }
    return fold(cell) === wantText;
  };
}

/**
 * Run a query over a CSV file.
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError for a missing file, invalid CSV (with its line), an unknown
 *   column, or a condition whose value does not fit its operator.
 */
export async function csvQuery(workspace: Workspace, args: CsvQueryInput): Promise<CsvQueryOutput> {
  const input = await loadInput(workspace, args.filepath, { value: undefined, name: 'text' });
  const delimiter = args.delimiter ?? (/\.tsv$/i.test(args.filepath) ? '\t' : ',');
  let records: string[][];
  try {
    records = parseCsvSync(input.text, { delimiter, bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (error) {
    throw new ToolExecutionError(`${args.filepath} is not valid CSV (${(error as Error).message.split('\n')[0]}).`);
  }
  if (records.length === 0) throw new ToolExecutionError(`${args.filepath} is empty; a CSV file needs a header row.`);
  const header = headerNames(records[0]!);
  const index = new Map(header.map((h, i) => [h, i] as const));
  const selected = args.columns ?? header;
  for (const c of selected) {
    if (!index.has(c)) throw new ToolExecutionError(`no column ${JSON.stringify(c)} to select; the columns are ${header.map((h) => JSON.stringify(h)).join(', ')}.`);
  }
  const tests = (args.where ?? []).map((c) => compileCondition(c, index, header));
  const any = args.match === 'any';
  let matched = records.slice(1).filter((row) => tests.length === 0 || (any ? tests.some((t) => t(row)) : tests.every((t) => t(row))));
  if (args.order_by !== undefined) {
    const col = index.get(args.order_by);
    if (col === undefined) throw new ToolExecutionError(`no column ${JSON.stringify(args.order_by)} to order by; the columns are ${header.map((h) => JSON.stringify(h)).join(', ')}.`);
    const numeric = matched.every((row) => asNumber(row[col] ?? '') !== undefined);
    const sign = args.descending === true ? -1 : 1;
    matched = [...matched].sort((a, b) => sign * (numeric ? asNumber(a[col] ?? '')! - asNumber(b[col] ?? '')! : compareText(a[col] ?? '', b[col] ?? '')));
  }
  const offset = args.offset ?? 0;
  const limit = args.limit ?? 50;
  const maxChars = args.max_chars ?? 20_000;
  const rows: Record<string, string>[] = [];
  let chars = 0;
  for (let i = offset; i < matched.length && rows.length < limit; i++) {
    const row = matched[i]!;
    const record = Object.fromEntries(selected.map((c) => [c, row[index.get(c)!] ?? ''])) as Record<string, string>;
    const size = JSON.stringify(record).length;
    if (rows.length > 0 && chars + size > maxChars) break;
    chars += size;
    rows.push(record);
  }
  const end = offset + rows.length;
  const output: CsvQueryOutput = {
    filepath: input.filepath ?? args.filepath,
    columns: [...selected],
    total_rows: records.length - 1,
    matched_rows: matched.length,
    rows,
    truncated: end < matched.length,
  };
  if (output.truncated) output.next_offset = end;
  return output;
}
