/**
 * `runCli` in process: the options stand in for the process's folder, environment, streams
 * and signals, so a command run in a test touches none of the test process's own.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { runCli } from '../../src/cli/main.js';
import { tempWorkspace } from '../helpers.js';
import { cliInProcess } from './in-process.js';

describe('runCli options', () => {
  const tmp = tempWorkspace();
  fs.writeFileSync(path.join(tmp.ws, 'here.txt'), 'from cwd\n');
  after(() => tmp.cleanup());

  test('cwd: the workspace and relative paths default to it, not to the process folder', async () => {
    const run = await cliInProcess(['call', 'read_file', '{"filepath":"here.txt"}'], { cwd: tmp.ws });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'from cwd\n');
    const relative = await cliInProcess(['call', 'read_file', '{"filepath":"here.txt"}', '--workspace', 'proj'], { cwd: tmp.root });
    assert.equal(relative.code, 0, relative.stderr);
    assert.equal(relative.stdout, 'from cwd\n');
  });

  test('env: TOOLGATE_MCP_TOKEN is read from the given environment', async () => {
    const env = { ...process.env };
    delete env.TOOLGATE_MCP_TOKEN;
    const run = await cliInProcess(['mcp', '--http', '--host', '192.0.2.1', '--workspace', tmp.ws], { env });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /set TOOLGATE_MCP_TOKEN/);
  });

  test('COMMAND --help and help COMMAND show that command\'s help; help alone shows every command', async () => {
    const all = await cliInProcess(['help']);
    assert.equal(all.code, 0);
    for (const command of ['list', 'call', 'agent', 'mcp', 'cockpit', 'approvals', 'trace']) assert.match(all.stdout, new RegExp(`toolgate ${command}\\b`), command);
    for (const args of [['call', '--help'], ['call', 'read_file', '-h'], ['help', 'call']]) {
      const one = await cliInProcess(args);
      assert.equal(one.code, 0, args.join(' '));
      assert.match(one.stdout, /^Usage:\n {2}toolgate call NAME/, args.join(' '));
      assert.match(one.stdout, /--sandbox PROFILE/, 'the options call takes');
      assert.match(one.stdout, /ARGS_JSON is one JSON object/);
      assert.doesNotMatch(one.stdout, /toolgate mcp|toolgate cockpit \[/, 'not the other commands');
    }
    // The agent's own help: its model endpoint and its exit codes.
    for (const args of [['agent', '--help'], ['help', 'agent']]) {
      const agent = await cliInProcess(args);
      assert.equal(agent.code, 0, args.join(' '));
      assert.match(agent.stdout, /--model-class/);
      assert.match(agent.stdout, /Exit codes: 0 answered, 1 stopped without an answer/);
    }
    const mcp = await cliInProcess(['mcp', '--help']);
    assert.match(mcp.stdout, /^Usage:\n {2}toolgate mcp/);
    assert.match(mcp.stdout, /--cockpit /);
    assert.doesNotMatch(mcp.stdout, /ARGS_JSON/);
    // A name that is not a command: the whole help.
    assert.equal((await cliInProcess(['help', 'frobnicate'])).stdout, all.stdout);
  });

  test('signal: aborting it stops `toolgate mcp` over stdio, which resolves 0', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.resume();
    stderr.resume();
    const controller = new AbortController();
    const running = runCli(['mcp', '--workspace', tmp.ws], { stdin, stdout, stderr, cwd: tmp.ws, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    assert.equal(await running, 0);
    stdin.end();
  });
});
