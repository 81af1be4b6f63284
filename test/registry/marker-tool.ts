/**
 * A folder of one compiled tool whose module records each import in a marker file (a
 * top-level side effect), with its schema file: what the tool-manifest tests count module
 * loads with. Written as a user's compiled folder would be (plain JavaScript applying `tool()`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers.js';

/** Where {@link writeMarkerTool} put things. */
export interface MarkerTool {
  /** The tool folder (`echo-mark.tool.mjs`). */
  dir: string;
  /** Its schema file. */
  schemas: string;
  /** The marker file: one line per import of the module. */
  marker: string;
}

/** Write the `echo_mark` tool folder, its schema file and an empty marker under `root`. */
export function writeMarkerTool(root: string): MarkerTool {
  const dir = path.join(root, 'marker-tools');
  fs.mkdirSync(dir, { recursive: true });
  const marker = path.join(root, 'marker.log');
  fs.writeFileSync(marker, '');
  const toolUrl = pathToFileURL(path.join(REPO_ROOT, 'dist/src/tool.js')).href;
  fs.writeFileSync(path.join(dir, 'echo-mark.tool.mjs'), [
    "import fs from 'node:fs';",
    `import { tool } from ${JSON.stringify(toolUrl)};`,
    `fs.appendFileSync(${JSON.stringify(marker)}, \`imported in \${process.pid}\\n\`);`,
    'export class EchoMarkTool {',
    '  run(args) { return `echo ${args.text}`; }',
    '}',
    "tool({ name: 'echo_mark', version: '1.0.0', kind: 'internal', readOnly: true, runner: 'main', tags: ['marker'] })(EchoMarkTool);",
    '',
  ].join('\n'));
  const schemas = path.join(root, 'marker-schemas.json');
  fs.writeFileSync(schemas, JSON.stringify({
    format: 'toolgate-schemas/1',
    tools: {
      'echo_mark@1.0.0': {
        name: 'echo_mark', version: '1.0.0', description: 'Echo the text back.', className: 'EchoMarkTool', source: 'marker-tools/echo-mark.tool.ts',
        inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'What to echo.' } }, required: ['text'], additionalProperties: false },
        outputSchema: { type: 'string' },
      },
    },
  }, null, 2));
  return { dir, schemas, marker };
}
