/**
 * Exporting tool specs by format name: {@link exportTool} picks the provider module.
 *
 * @module
 */
import { toAnthropicTool, type AnthropicTool } from './anthropic.js';
import type { ExportableTool } from './common.js';
import { toMcpTool, type McpTool } from './mcp.js';
import { toOpenAIStrictTool, toOpenAITool, type OpenAITool } from './openai.js';

/** Export formats understood by {@link exportTool}. */
export type ExportFormat = 'openai' | 'openai-strict' | 'anthropic' | 'mcp';

/** Export formats as a list (for CLIs and validation). */
export const EXPORT_FORMATS: readonly ExportFormat[] = ['openai', 'openai-strict', 'anthropic', 'mcp'];

/** Export one tool in a named format. */
export function exportTool(tool: ExportableTool, format: ExportFormat): OpenAITool | AnthropicTool | McpTool {
  switch (format) {
    case 'openai':
      return toOpenAITool(tool);
    case 'openai-strict':
      return toOpenAIStrictTool(tool);
    case 'anthropic':
      return toAnthropicTool(tool);
    case 'mcp':
      return toMcpTool(tool);
  }
}
