/**
 * A remote MCP tool as a toolgate tool, without any connection state: what the bridge
 * (`bridge.ts`) registers from a server's `tools/list` entry (its action kind, its description
 * within {@link MAX_BRIDGED_DESCRIPTION}, its title and annotations kept as hints) and how a
 * server's `CallToolResult` content becomes the text the model reads (images attached, other
 * blocks named, never dumped).
 *
 * @module
 */
import type { McpServerConfig } from './config.js';
import type { ActionKind } from '../policy/action-kinds.js';
import type { ToolContext } from '../types/tool.js';

/** A server's `tools/list` entry as read here (the MCP SDK's `Tool`, structurally: the SDK stays in bridge.ts). */
interface McpToolSpec {
  readonly name: string;
  readonly description?: string | undefined;
  readonly title?: string | undefined;
  /** Hints (`readOnlyHint`, `destructiveHint`, `title`...), kept as the server gave them. */
  readonly annotations?: { readonly readOnlyHint?: boolean | undefined; readonly title?: string | undefined; readonly [hint: string]: unknown } | undefined;
}

/** One content block of a server's `CallToolResult` (the SDK's `ContentBlock`, structurally). */
type McpContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: { readonly uri: string; readonly text?: string | undefined; readonly mimeType?: string | undefined } }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name?: string | undefined };

/** Characters of a bridged tool's description kept (a server's longer text is cut, with a note). */
export const MAX_BRIDGED_DESCRIPTION = 4000;

/** A bridged tool's description: the server's, cut at {@link MAX_BRIDGED_DESCRIPTION} characters (every description goes to the model with every request), or one naming the tool and server when it gave none. */
export function bridgedDescription(spec: Pick<McpToolSpec, 'name' | 'description'>, server: string): string {
  const given = (spec.description ?? '').trim();
  if (given === '') return `Tool ${spec.name} of the MCP server ${server}.`;
  return given.length > MAX_BRIDGED_DESCRIPTION ? `${given.slice(0, MAX_BRIDGED_DESCRIPTION)}... [description cut at ${MAX_BRIDGED_DESCRIPTION} characters]` : given;
}

/**
 * The action kind of a bridged tool: `mcp_read` only when its server is `trusted` (the config
 * says to believe its hints) and the tool says `annotations.readOnlyHint: true`; anything else,
 * a missing hint included, is `mcp_write_or_unknown`. An untrusted server's hints are hints,
 * not guarantees (MCP specification 2025-11-25, "Tool annotations").
 */
export function bridgedKind(config: Pick<McpServerConfig, 'trusted'>, spec: Pick<McpToolSpec, 'annotations'>): ActionKind {
  return config.trusted === true && spec.annotations?.readOnlyHint === true ? 'mcp_read' : 'mcp_write_or_unknown';
}

/** A tool's title and annotations as its server listed them (kept as hints), or `undefined` when it gave none. */
export function upstreamOf(spec: McpToolSpec): { title?: string; annotations?: Record<string, unknown> } | undefined {
  const out: { title?: string; annotations?: Record<string, unknown> } = {};
  const annotations = spec.annotations as Record<string, unknown> | undefined;
  const title = typeof spec.title === 'string' && spec.title.trim() !== '' ? spec.title : typeof annotations?.title === 'string' ? annotations.title : undefined;
  if (title !== undefined) out.title = title.slice(0, 200);
  if (annotations !== undefined && typeof annotations === 'object' && Object.keys(annotations).length > 0) out.annotations = { ...annotations };
  return out.title === undefined && out.annotations === undefined ? undefined : out;
}

/** The content of a server's result as the text the model reads, one block a line: images are attached to the call (`ctx.attachImage`), other binary blocks named, not shown. */
export function contentText(result: { readonly content?: readonly McpContentBlock[] | undefined }, ctx: Pick<ToolContext, 'attachImage'>): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
        try {
          ctx.attachImage(`data:${block.mimeType};base64,${block.data}`);
        } catch (error) {
          parts.push(`[image of type ${block.mimeType} not attached: ${(error as Error).message}]`);
        }
        break;
      case 'audio':
        parts.push(`[audio of type ${block.mimeType}, ${block.data.length} base64 characters, not shown]`);
        break;
      case 'resource': {
        const res = block.resource as { uri: string; text?: string; mimeType?: string };
        parts.push(typeof res.text === 'string' ? `[resource ${res.uri}]\n${res.text}` : `[binary resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ''}, not shown]`);
        break;
      }
      case 'resource_link':
        parts.push(`[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`);
        break;
      default:
        parts.push(`[content of type ${String((block as { type?: unknown }).type)}, not shown]`);
    }
  }
  return parts.join('\n');
}
