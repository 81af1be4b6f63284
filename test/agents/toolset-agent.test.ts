/**
 * A toolset and a programmatic tool seen by an agent (issue 19 items 5 and 6): a scripted
 * ChatModel drives GeneralAgent over a ToolSystem whose default set is replaced by a toolset
 * (with a description override) and which has a tool registered from code. The model is
 * offered exactly that set, a tool left out is unknown, the programmatic tool runs.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { GeneralAgent, ToolSystem } from 'toolgate';
import { tempWorkspace } from '../helpers.js';
import { ScriptedModel } from './scripted-model.js';

const tmp = tempWorkspace();
after(() => tmp.cleanup());

function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } };
}

test('GeneralAgent over a toolset with a programmatic tool: offered set, calls, a left-out tool unknown', async () => {
  fs.writeFileSync(path.join(tmp.ws, 'ticket.txt'), 'ticket 7: printer on fire\n');
  const tools = new ToolSystem({
    workspace: tmp.ws, executor: { outputStore: false },
    toolset: ['list_files', { name: 'read_file', description: 'Read a ticket file.' }],
  });
  await tools.start();
  tools.registry.register({
    name: 'ticket_priority', version: '1.0.0', kind: 'internal', readOnly: true,
    description: 'The priority of a ticket from its text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    run: ({ text }) => (/fire/.test(String(text)) ? 'urgent' : 'normal'),
  });
  const model = new ScriptedModel([
    { role: 'assistant', content: null, tool_calls: [call('c1', 'read_file', { filepath: 'ticket.txt' }), call('c2', 'write_file', { filepath: 'x.txt', content: 'x' })] },
    { role: 'assistant', content: null, tool_calls: [call('c3', 'ticket_priority', { text: 'ticket 7: printer on fire' })] },
    { role: 'assistant', content: 'Ticket 7 is urgent.' },
  ]);
  const agent = new GeneralAgent({ tools, model });
  try {
    const run = await agent.run('How urgent is the ticket in ticket.txt?');
    assert.equal(run.stopReason, 'final');
    assert.equal(run.text, 'Ticket 7 is urgent.');
    const offered = model.requests[0]!.tools.map((t) => t.function.name).sort();
    assert.deepEqual(offered, ['list_files', 'read_file', 'ticket_priority']);
    assert.equal(model.requests[0]!.tools.find((t) => t.function.name === 'read_file')!.function.description, 'Read a ticket file.');
    const [read, write, priority] = run.results;
    assert.equal(read!.success, true, read!.error);
    assert.match(read!.output, /printer on fire/);
    assert.equal(write!.errorCode, 'UNKNOWN_TOOL');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'x.txt')), false);
    assert.equal(priority!.output, 'urgent');
  } finally {
    await tools.close();
  }
});
