/**
 * Programmatic registration (`registry.register({ name, version, description, inputSchema,
 * run, ... })`, issue 19 item 6, seed 003_d2cf330b7b74164f.txt): schemas checked against the
 * meta-schema with errors naming the field, calls through the same executor path and gates as
 * decorated tools, and replacement of a `name@version` while a call waits for its approval.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBuiltinTools, ToolDefinitionError, ToolExecutor, ToolRegistry, ToolSystem, type ConfirmationRequest, type ToolDefinition } from 'toolgate';
import { tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

const tmp = tempWorkspace();
after(() => tmp.cleanup());

/** A closed object schema of two numbers. */
const TWO_NUMBERS = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };

function adder(overrides: Partial<ToolDefinition> = {}): ToolDefinition<{ a: number; b: number }, number> {
  return {
    name: 'add_numbers', version: '1.0.0', kind: 'internal', readOnly: true, description: 'Add two numbers.',
    inputSchema: TWO_NUMBERS, outputSchema: { type: 'number' },
    run: ({ a, b }) => a + b,
    ...(overrides as object),
  };
}

function definitionError(fn: () => unknown): ToolDefinitionError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolDefinitionError, `expected a ToolDefinitionError, got ${String(error)}`);
    assert.equal(error.code, 'DEFINITION');
    return error;
  }
  assert.fail('register did not throw');
}

describe('registry.register(definition): checking the definition', () => {
  test('a bad input schema is refused against the draft-07 meta-schema, naming the field inside the schema', () => {
    const registry = new ToolRegistry();
    const error = definitionError(() => registry.register(adder({ inputSchema: { type: 'object', properties: { a: { type: 'numbr' } } } })));
    assert.match(error.message, /inputSchema\.properties\.a\.type/);
    assert.match(error.message, /draft-07 meta-schema/);
    assert.equal(error.toolName, 'add_numbers');
    assert.equal(registry.has('add_numbers'), false);
  });

  test('a bad output schema names outputSchema; a 2020-12 schema is checked against its own meta-schema', () => {
    const registry = new ToolRegistry();
    const output = definitionError(() => registry.register(adder({ outputSchema: { type: 'number', minimum: 'zero' } })));
    assert.match(output.message, /outputSchema\.minimum/);
    const in2020 = definitionError(() => registry.register(adder({
      inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', prefixItems: 'not a list' },
    })));
    assert.match(in2020.message, /inputSchema\.prefixItems/);
    assert.match(in2020.message, /2020-12 meta-schema/);
  });

  test('a schema of an unknown draft, an input schema that is not an object schema, and a keyword strict mode refuses are named', () => {
    const registry = new ToolRegistry();
    assert.match(definitionError(() => registry.register(adder({ inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } }))).message, /inputSchema\.\$schema/);
    assert.match(definitionError(() => registry.register(adder({ inputSchema: { type: 'array' } }))).message, /inputSchema must have type "object"/);
    assert.match(definitionError(() => registry.register(adder({ inputSchema: { type: 'object', properties: {}, colour: 'red' } }))).message, /inputSchema does not compile: .*colour/);
  });

  test('fields: unknown keys, a runner, a missing description or kind are refused by name', () => {
    const registry = new ToolRegistry();
    assert.match(definitionError(() => registry.register(adder({ colour: 'red' } as never))).message, /colour is not a known field/);
    assert.match(definitionError(() => registry.register(adder({ runner: 'process' } as never))).message, /runner does not apply: run is a function of this process/);
    assert.match(definitionError(() => registry.register(adder({ description: ' ' }))).message, /description is required/);
    assert.match(definitionError(() => registry.register(adder({ kind: undefined as never }))).message, /kind is required/);
    assert.match(definitionError(() => registry.register(adder({ name: 'Add-Numbers' }))).message, /name must match/);
  });

  test('a 2020-12 schema is accepted, and arguments are validated by it', async () => {
    const registry = new ToolRegistry();
    const tool = registry.register({
      name: 'first_of_pair', version: '1.0.0', kind: 'internal', readOnly: true, description: 'The first element of a pair.',
      inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } }, required: ['pair'] },
      run: ({ pair }) => (pair as unknown[])[0],
    });
    assert.equal(tool.runner, 'main');
    const executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws, outputStore: false });
    try {
      assert.equal((await executor.call('first_of_pair', { pair: ['x', 1] })).output, 'x');
      const bad = await executor.call('first_of_pair', { pair: ['x', 1, 2] });
      assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
    } finally {
      await executor.close();
    }
  });

  test('registering a decorated tool twice is still a definition error; a definition replaces', async () => {
    const { registry: builtins } = await loadBuiltinTools();
    await assert.rejects(loadBuiltinTools(builtins), (error: unknown) => error instanceof ToolDefinitionError && /already registered/.test(error.message));
    const registry = new ToolRegistry();
    const first = registry.register(adder());
    const second = registry.register(adder({ description: 'Add two numbers, again.' }));
    assert.notEqual(first, second);
    assert.equal(registry.get('add_numbers'), second);
    assert.equal(registry.versions('add_numbers').length, 1);
    assert.equal(registry.isReplaced(first), true);
    assert.equal(registry.isReplaced(second), false);
  });
});

describe('a registered definition runs through the same path as a decorated tool', () => {
  test('through ToolSystem: called, validated, gated by confirmation and the mode, timed out', async () => {
    const system = new ToolSystem({ workspace: tmp.ws, builtins: false, executor: { outputStore: false } });
    await system.start();
    try {
      system.registry.register(adder());
      system.registry.register({
        name: 'save_note', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, description: 'Save a note (asks first).',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
        run: ({ text }) => `saved ${String(text)}`,
      });
      system.registry.register({
        name: 'wait_for_signal', version: '1.0.0', kind: 'internal', readOnly: true, timeoutMs: 100, description: 'Wait until stopped.',
        inputSchema: { type: 'object', properties: {} },
        run: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
      });
      const ok = await system.execute({ name: 'add_numbers', arguments: '{"a":2,"b":3}' });
      assert.equal(ok.success, true);
      assert.equal(ok.output, '5');
      assert.equal((await system.execute({ name: 'add_numbers', arguments: '{"a":2}' })).errorCode, 'INVALID_ARGUMENTS');
      assert.equal((await system.execute({ name: 'save_note', arguments: '{"text":"hi"}' })).errorCode, 'CONFIRMATION_REQUIRED');
      const confirmed = await system.execute({ name: 'save_note', arguments: '{"text":"hi"}' }, { confirm: true });
      assert.equal(confirmed.output, 'saved hi');
      const planned = await system.execute({ name: 'save_note', arguments: '{"text":"hi"}' }, { mode: 'plan', confirm: true });
      assert.equal(planned.errorCode, 'MODE_DENIED');
      assert.equal((await system.execute({ name: 'wait_for_signal', arguments: '{}' })).errorCode, 'TIMEOUT');
      // Offered to models like any tool.
      assert.ok(system.registry.toOpenAI().some((t) => t.function.name === 'add_numbers'));
      // A replacement runs its own run function from the next call on (the main runner's instance is renewed).
      system.registry.register(adder({ run: ({ a, b }: { a: number; b: number }) => a * b } as never));
      assert.equal((await system.execute({ name: 'add_numbers', arguments: '{"a":2,"b":3}' })).output, '6');
    } finally {
      await system.close();
    }
  });

  test('a replacement while a call waits for approval: the approval given afterwards does not run either definition (TOOL_REPLACED)', async () => {
    const registry = new ToolRegistry();
    const ran: string[] = [];
    const definition = (label: string, description: string): ToolDefinition => ({
      name: 'deploy_site', version: '1.0.0', kind: 'network', requiresConfirmation: true, description,
      inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
      run: ({ target }) => {
        ran.push(`${label}:${String(target)}`);
        return `${label} deployed ${String(target)}`;
      },
    });
    const first = registry.register(definition('old', 'Deploy the site.'));
    let asked!: (request: ConfirmationRequest) => void;
    const question = new Promise<ConfirmationRequest>((resolve) => (asked = resolve));
    let answer!: (yes: boolean) => void;
    const answered = new Promise<boolean>((resolve) => (answer = resolve));
    const executor = new ToolExecutor(registry, {
      workspaceRoot: tmp.ws, outputStore: false,
      confirmationHandler: (request) => {
        asked(request);
        return answered;
      },
    });
    try {
      const pending = executor.call('deploy_site', { target: 'prod' });
      const request = await question;
      assert.equal(request.description, 'Deploy the site.');
      const second = registry.register({
        ...definition('new', 'Deploy the site, differently.'),
        run: ({ target }) => {
          ran.push(`new:${String(target)}`);
          return `new deployed ${String(target)} (replacement)`;
        },
      });
      assert.notEqual(second.revision, first.revision, 'the replacement has its own revision');
      answer(true);
      const result = await pending;
      assert.equal(result.success, false);
      assert.equal(result.errorCode, 'TOOL_REPLACED');
      assert.match(result.error ?? '', /registered again .* not run/);
      assert.deepEqual(ran, []);
      // A new call runs the replacement (its own instance on the main runner), after its own approval.
      const again = executor.call('deploy_site', { target: 'prod' });
      const result2 = await again;
      assert.equal(result2.success, true, result2.error);
      assert.equal(result2.output, 'new deployed prod (replacement)');
      assert.deepEqual(ran, ['new:prod']);
    } finally {
      await executor.close();
    }
  });

  test('each registration gets its own revision (same source, other captured values, bound functions), unless the definition gives a stable revision', () => {
    const registry = new ToolRegistry();
    const limitTo = (limit: number): ToolDefinition => ({
      name: 'capped_echo', version: '1.0.0', kind: 'internal', readOnly: true, description: 'Echo a text, capped.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      run: ({ text }) => String(text).slice(0, limit),
    });
    // Same source, different captured values: different behaviour, so different revisions.
    const small = registry.register(limitTo(3)).revision;
    const large = registry.register(limitTo(3000)).revision;
    assert.notEqual(large, small);
    // The very same definition registered again is a new registration too.
    const same = limitTo(3);
    const once = registry.register(same).revision;
    assert.notEqual(registry.register(same).revision, once);
    // Bound functions all read "function () { [native code] }": still one revision each.
    const bound = (n: number): ToolDefinition => ({ ...limitTo(n), run: function (this: number, args: Record<string, unknown>) { return String(args.text).slice(0, this); }.bind(n) });
    assert.equal(String(bound(1).run), String(bound(2).run));
    assert.notEqual(registry.register(bound(1)).revision, registry.register(bound(2)).revision);
    // A stable revision keeps the registration revision; another revision (or description, or schema) changes it.
    const stable = registry.register({ ...limitTo(3), revision: 'cap-3' }).revision;
    assert.equal(registry.register({ ...limitTo(3), revision: 'cap-3' }).revision, stable);
    assert.notEqual(registry.register({ ...limitTo(3000), revision: 'cap-3000' }).revision, stable);
    assert.notEqual(registry.register({ ...limitTo(3), revision: 'cap-3', description: 'Echo a text, cut.' }).revision, stable);
    assert.notEqual(registry.register({ ...limitTo(3), revision: 'cap-3', inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 9 } }, required: ['text'] } }).revision, stable);
    assert.throws(() => registry.register({ ...limitTo(3), revision: '' }), (e: unknown) => e instanceof ToolDefinitionError && /revision/.test(e.message));
  });

  test('a replaced definition\'s instance is closed once its calls in flight end; the same definition registered twice is closed once', async () => {
    const registry = new ToolRegistry();
    const closed: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow: ToolDefinition = {
      name: 'slow_echo', version: '1.0.0', kind: 'internal', readOnly: true, description: 'Echo after a while.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      run: async ({ text }) => {
        started();
        await held;
        return String(text);
      },
      close: () => void closed.push('slow'),
    };
    const quick = (label: string): ToolDefinition => ({ ...slow, description: `Echo at once (${label}).`, run: ({ text }) => String(text), close: () => void closed.push(label) });
    registry.register(slow);
    const executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws, outputStore: false });
    let closedExecutor = false;
    try {
      const inFlight = executor.call('slow_echo', { text: 'first' });
      await running;
      registry.register(quick('second'));
      assert.equal((await executor.call('slow_echo', { text: 'x' })).output, 'x');
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(closed, [], 'the replaced instance still runs a call: not closed yet');
      release();
      assert.equal((await inFlight).output, 'first');
      await waitFor(() => closed.length > 0, { what: 'the replaced instance to close once its last call ended' });
      assert.deepEqual(closed, ['slow'], 'closed once its last call ended, before the executor closes');
      // A replaced instance with no call running is closed at once.
      registry.register(quick('third'));
      assert.equal((await executor.call('slow_echo', { text: 'y' })).output, 'y');
      await waitFor(() => closed.length > 1, { what: 'the replaced idle instance to close' });
      assert.deepEqual(closed, ['slow', 'second']);
      // The same definition object registered twice (each call made an instance): its close runs once.
      const same = quick('same');
      registry.register(same);
      assert.equal((await executor.call('slow_echo', { text: 'z' })).output, 'z');
      registry.register(same);
      assert.equal((await executor.call('slow_echo', { text: 'w' })).output, 'w');
      await executor.close();
      closedExecutor = true;
      assert.deepEqual(closed, ['slow', 'second', 'third', 'same']);
    } finally {
      release();
      if (!closedExecutor) await executor.close();
    }
  });
});
