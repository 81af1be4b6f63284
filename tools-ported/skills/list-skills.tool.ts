import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { configEnvOf, findSkills } from './skill-catalog.js';

/** Arguments of list_skills (none). */
export interface ListSkillsInput {}

/**
 * List the skills available here: each one's name and what it is for (from its SKILL.md).
 * A skill is a folder of instructions, and sometimes scripts and tools, for one kind of task:
 * when a task matches a skill's description, read it with read_skill before starting.
 * Read-only.
 */
@tool({ name: 'list_skills', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['skills', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class ListSkillsTool implements Tool<ListSkillsInput, string> {
  async run(_args: ListSkillsInput, ctx: ToolContext): Promise<string> {
    const catalog = findSkills({ workspaceRoot: ctx.workspace.realRoot, env: configEnvOf(ctx) });
    const lines = catalog.skills.map((s) => {
      const tools = s.tools.length === 0 ? '' : catalog.trusted.has(s) ? ` [tools: ${s.tools.map((t) => t.name).join(', ')}]` : ' [its tools are not available: untrusted workspace skill; read_skill says how the user can trust it]';
      return `- ${s.name} (${s.origin}): ${s.description}${tools}`;
    });
    if (lines.length === 0) lines.push(`No skills. Skills are folders with a SKILL.md in ${catalog.userFolder}${catalog.workspaceFolder === undefined ? '' : ` or ${catalog.workspaceFolder}`}.`);
    else lines.unshift(`${catalog.skills.length} skill(s); read one with read_skill before using it:`);
    for (const p of catalog.problems) ctx.note(`[skill not loaded: ${p.message}]`);
    return lines.join('\n');
  }
}
