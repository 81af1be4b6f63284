import { MAX_ARTIFACT_BYTES, registerArtifact, tool, type Tool, type ToolContext } from '../../src/tool.js';
import { turnOf } from './turn.js';

/** Arguments of artifact_register. */
export interface ArtifactRegisterInput {
  /**
   * The finished file, relative to the workspace root (usually the path artifact_prepare gave).
   * It is moved into the artifact store. One regular file: not a folder, not a link.
   * @format workspace-path
   */
  path: string;
  /**
   * A short title for the user.
   * @maxLength 200
   */
  title?: string;
}

/**
 * Hand a finished file to the user: move it into the workspace's artifact store and bind it to
 * this turn. Returns the artifact's id. One regular file at most 64 MiB; folders and symbolic
 * links are refused (nothing changes).
 */
@tool({ name: 'artifact_register', version: '1.0.0', kind: 'file_write', domain: 'artifact', tags: ['artifact', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class ArtifactRegisterTool implements Tool<ArtifactRegisterInput, string> {
  async run(args: ArtifactRegisterInput, ctx: ToolContext): Promise<string> {
    const record = await registerArtifact(ctx.workspace, args.path, { turn: turnOf(ctx), title: args.title });
    return `Registered ${record.source} as artifact ${record.id} (${record.name}, ${record.size} bytes, sha256 ${record.sha256.slice(0, 16)}; at most ${MAX_ARTIFACT_BYTES} bytes each). The user can open it by this id.`;
  }
}
