import { ARTIFACT_STAGING_DIR, prepareStaging, tool, type Tool, type ToolContext } from '../../src/tool.js';
import { turnOf } from './turn.js';

/** Arguments of artifact_prepare. */
export interface ArtifactPrepareInput {
  /**
   * File name of the output to make, such as "report.csv" (letters, digits, ".", "_" and "-";
   * no folders; at most 128 characters).
   * @minLength 1
   * @maxLength 128
   */
  name: string;
}

/**
 * Get a staging path for a file you will make for the user (a report, a chart, an export).
 * Write the file there (or anywhere in the workspace), then call artifact_register with its
 * path so the user gets it. The path is inside the workspace, in this turn's own staging folder.
 */
@tool({ name: 'artifact_prepare', version: '1.0.0', kind: 'file_write', domain: 'artifact', tags: ['artifact', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class ArtifactPrepareTool implements Tool<ArtifactPrepareInput, string> {
  async run(args: ArtifactPrepareInput, ctx: ToolContext): Promise<string> {
    const staged = await prepareStaging(ctx.workspace, turnOf(ctx), args.name);
    return `Write the file at ${staged} (a folder of this turn under ${ARTIFACT_STAGING_DIR}), then call artifact_register with {"path": ${JSON.stringify(staged)}}.`;
  }
}
