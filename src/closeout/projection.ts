/**
 * Output projection (issue 19 item 7, seed `004_1a9ea3106da7ef2e.txt`): the views of one
 * call's output. What the model sees (the tool's `head` or `head-tail` truncation, or its
 * summary function), whether the whole output is kept when the model sees less, and what a
 * durable ledger keeps as the call's output. A tool without the `output` option gets what
 * every tool got before it existed.
 *
 * @module
 */
import type { OutputProjection, TruncationStrategy } from '../types/tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import { closeOut, truncate } from './closeout.js';

/** What projection needs of a tool. */
export interface ProjectedTool {
  readonly name: string;
  /** Characters; `<= 0` for no truncation. */
  readonly maxOutputLength: number;
  readonly truncation: TruncationStrategy;
  readonly output: Readonly<OutputProjection>;
}

/** The model's view of an output. */
export interface ModelView {
  /** The text the model sees (never empty; notes after it). */
  output: string;
  /** Whether the model sees less than the whole output (so the whole is worth keeping). */
  partial: boolean;
}

/**
 * The model's view of a successful call's output.
 * @param text - the output as text (the return value as JSON when it is not a string).
 * @param notes - the tool's notes, appended outside the window.
 * @param cut - whether the worker already cut the text at `maxOutputLength`.
 */
export function modelView(tool: ProjectedTool, text: string, notes: readonly string[], cut: boolean): ModelView {
  const summarize = tool.output.model;
  if (typeof summarize !== 'function' || cut || text === '') {
    const max = cut ? 0 : tool.maxOutputLength;
    return { output: closeOut(text, notes, max, tool.truncation), partial: !cut && max > 0 && text.length > max };
  }
  let summary: string;
  try {
    summary = String(summarize(text));
  } catch (error) {
    const failed = `[the summary of ${tool.name}'s output failed (${clip((error as Error)?.message ?? String(error), 200)}); its head is shown]`;
    return { output: closeOut(text, [failed, ...notes], tool.maxOutputLength, 'head'), partial: tool.maxOutputLength > 0 && text.length > tool.maxOutputLength };
  }
  const shown = summary.trim() === '' ? `[${tool.name}'s summary of its output was empty]` : truncate(summary, tool.maxOutputLength, 'head');
  const note = summary === text ? [] : [`[a summary of ${text.length} characters of output]`];
  return { output: closeOut(shown, [...note, ...notes], 0, 'head'), partial: summary !== text };
}

/** Whether the whole output of a call whose model view is partial is kept (`storeFull`, default true). */
export function keepsFullOutput(tool: ProjectedTool): boolean {
  return tool.output.storeFull !== false;
}

/** Whether a durable ledger keeps the call's output text (`trace: 'output'`, the default) or only its metadata. */
export function ledgerKeepsText(tool: ProjectedTool): boolean {
  return tool.output.trace !== 'metadata';
}

/**
 * The result as a durable ledger keeps it: as it is, or, with `trace: 'metadata'`, without its
 * text (output replaced by a line with its length; no structured copy, images or attachments).
 */
export function ledgerView(tool: ProjectedTool, result: ToolExecutionResult): ToolExecutionResult {
  if (ledgerKeepsText(tool)) return result;
  const { structured: _s, images: _i, attachments: _a, fullOutput: _f, ...rest } = result;
  return { ...rest, output: `[output not kept (trace: metadata): ${result.output.length} characters were shown to the model]` };
}
