/**
 * ToolContext for MCP-grade tools (issue 18, item 2): `ctx.progress`, `ctx.log`, `ctx.elicit`
 * and `ctx.sample` reach the caller's `client` from every runner (worker threads, child
 * processes, the main thread), in order and with the last messages before the result; without
 * a client, progress and logs go nowhere and elicit/sample fail with `CLIENT_UNAVAILABLE`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolExecutor, type ToolClient } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

describe('the tool context reaches the caller\'s client from every runner', () => {
  let executor: ToolExecutor;
  before(async () => {
    executor = new ToolExecutor(await fixtureRegistry(), { outputStore: false });
  });
  after(async () => {
    await executor.close();
  });

  for (const runner of ['pool', 'process', 'main']) {
    test(`${runner}: progress, logs, an elicitation and a sample, in order`, async () => {
      const events: unknown[] = [];
      const client: ToolClient = {
        progress: (done, total, message) => events.push(['progress', done, total, message]),
        log: (level, data, tool) => events.push(['log', level, data, tool]),
        elicit: async (message, schema, signal) => {
          assert.equal(signal.aborted, false);
          events.push(['elicit', message, Object.keys(schema.properties as object)]);
          return { action: 'accept', content: { name: 'Ada' } };
        },
        sample: async (request) => {
          events.push(['sample', request.maxTokens]);
          return { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'scripted' };
        },
      };
      const r = await executor.call(`talk_to_caller_${runner}`, { ask: true }, { client });
      assert.equal(r.success, true, r.output);
      assert.deepEqual(r.structured, { elicited: JSON.stringify({ action: 'accept', content: { name: 'Ada' } }), sampled: 'hi!' });
      const tool = `talk_to_caller_${runner}`;
      assert.deepEqual(events, [
        ['progress', 1, 3, 'started'],
        ['log', 'debug', 'a debug line', tool],
        ['log', 'info', { step: 'middle', values: [1, 2] }, tool],
        ['progress', 2, 3, undefined],
        ['elicit', 'Your name?', ['name']],
        ['sample', 10],
        ['progress', 3, 3, 'done'],
        ['log', 'warning', 'the last line', tool],
      ]);
    });

    test(`${runner}: a call longer than the pool's wait for the end marker keeps its last messages (issue 34, item 11)`, async () => {
      const events: unknown[] = [];
      const client: ToolClient = {
        progress: (done, total, message) => events.push(['progress', done, total, message]),
        log: (level, data) => events.push(['log', level, data]),
      };
      const r = await executor.call(`talk_to_caller_${runner}`, { pauseMs: 1500 }, { client });
      assert.equal(r.success, true, r.output);
      assert.deepEqual(events.slice(-2), [['progress', 3, 3, 'done'], ['log', 'warning', 'the last line']]);
    });

    test(`${runner}: without a client, progress and logs go nowhere and elicit fails with CLIENT_UNAVAILABLE`, async () => {
      const quiet = await executor.call(`talk_to_caller_${runner}`, {});
      assert.equal(quiet.success, true, quiet.output);
      const asked = await executor.call(`talk_to_caller_${runner}`, { ask: true });
      assert.equal(asked.success, false);
      assert.equal(asked.errorCode, 'CLIENT_UNAVAILABLE');
      assert.match(asked.output, /ctx\.elicit\(\) needs a caller that can ask a person/);
    });

    test(`${runner}: a client that offers only progress makes elicit fail with CLIENT_UNAVAILABLE, at once`, async () => {
      const seen: number[] = [];
      const r = await executor.call(`talk_to_caller_${runner}`, { ask: true }, { client: { progress: (done) => seen.push(done) } });
      assert.equal(r.errorCode, 'CLIENT_UNAVAILABLE');
      assert.deepEqual(seen, [1, 2]);
    });

    test(`${runner}: a client whose elicitation fails fails the call with its message`, async () => {
      const r = await executor.call(`talk_to_caller_${runner}`, { ask: true }, {
        client: {
          elicit: async () => {
            throw new Error('the person closed the dialog');
          },
        },
      });
      assert.equal(r.success, false);
      assert.match(r.output, /the person closed the dialog/);
    });
  }
});
