/**
 * src/registry/lazy-visibility.ts without a registry or an agent: the domain of a tool (its
 * own, else a mapped tag), the core, monotonic visibility, the answer of request_tools
 * (visible, already visible, unknown, not in the mode), the TOOL_HIDDEN result; and the
 * `@tool({ domain })` option's check.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainVisibility, loadPortedTools, ToolDefinitionError } from 'toolgate';
import { answerRequestTools } from '../../src/builtin/request-tools.js';
import { REQUEST_TOOLS_NAME, type DomainTool, type RequestToolsAnswer } from '../../src/registry/lazy-visibility.js';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';

const t = (name: string, tags: string[] = [], domain?: string): DomainTool => ({ name, tags, domain });
const TOOLS = [t('read_file'), t('git_status', ['git'], 'git'), t('git_commit', ['git'], 'git'), t('csv_query', ['data']), t('replace_in_file', ['edit'])];

describe('DomainVisibility', () => {
  it('a tool without a domain is core; a mapped tag gives a domain; the tool\'s own domain wins', () => {
    const v = new DomainVisibility({ tagDomains: { data: 'tables', git: 'other' } });
    assert.equal(v.domainOf(TOOLS[0]!), undefined);
    assert.equal(v.domainOf(TOOLS[1]!), 'git');
    assert.equal(v.domainOf(TOOLS[3]!), 'tables');
    assert.deepEqual(v.domains(TOOLS), ['git', 'tables']);
    assert.ok(v.shows(TOOLS[0]!));
    assert.ok(!v.shows(TOOLS[1]!));
  });

  it('request makes a domain visible once, reports it already visible after, and unknown / not-in-mode domains unavailable', () => {
    const v = new DomainVisibility();
    const offered = TOOLS.filter((x) => x.name !== 'git_commit');
    const first = v.request(['git', 'git', 'nope'], TOOLS, offered);
    assert.deepEqual(first, { visible: { git: ['git_status'] }, alreadyVisible: {}, unavailable: [{ domain: 'nope', reason: 'unknown' }] });
    assert.ok(v.shows(TOOLS[1]!));
    assert.deepEqual(v.visibleDomains, ['git']);
    const second = v.request(['git'], TOOLS, offered);
    assert.deepEqual(second, { visible: {}, alreadyVisible: { git: ['git_status'] }, unavailable: [] });
    // A domain whose tools exist but the mode never runs: not made visible.
    const onlyWrites = new DomainVisibility({ tagDomains: { edit: 'editing' } });
    assert.deepEqual(onlyWrites.request(['editing'], TOOLS, TOOLS.filter((x) => x.name !== 'replace_in_file')).unavailable, [{ domain: 'editing', reason: 'not_in_mode' }]);
    assert.deepEqual(onlyWrites.visibleDomains, []);
  });

  it('hiddenCall is a TOOL_HIDDEN result naming request_tools and the domain while hidden, undefined after', () => {
    const v = new DomainVisibility();
    assert.equal(v.hiddenCall(TOOLS[0]!, 'c0'), undefined);
    const hidden = v.hiddenCall(TOOLS[1]!, 'c1')!;
    assert.equal(hidden.success, false);
    assert.equal(hidden.errorCode, 'TOOL_HIDDEN');
    assert.equal(hidden.callId, 'c1');
    assert.equal(hidden.tool, 'git_status');
    assert.match(hidden.output, new RegExp(`${REQUEST_TOOLS_NAME}.*"domains": \\["git"\\]`));
    v.request(['git'], TOOLS, TOOLS);
    assert.equal(v.hiddenCall(TOOLS[1]!, 'c2'), undefined);
  });

  it('answerRequestTools checks the arguments (reason required, domains a non-empty list) and answers JSON', () => {
    const v = new DomainVisibility();
    for (const bad of [{ domains: ['git'] }, { domains: [], reason: 'x' }, { domains: 'git', reason: 'x' }, { domains: ['git'], reason: '' }, { domains: ['git'], reason: 'x', extra: 1 }]) {
      const result = answerRequestTools(v, bad, 'c', TOOLS, TOOLS);
      assert.equal(result.errorCode, 'INVALID_ARGUMENTS', JSON.stringify(bad));
    }
    assert.deepEqual(v.visibleDomains, []);
    const ok = answerRequestTools(v, { domains: ['git'], reason: 'look at history' }, 'c', TOOLS, TOOLS);
    assert.equal(ok.success, true);
    assert.deepEqual((JSON.parse(ok.output) as RequestToolsAnswer).visible, { git: ['git_commit', 'git_status'] });
  });
});

describe('@tool({ domain })', () => {
  class Probe {
    run(): string {
      return '';
    }
  }
  const base = { name: 'probe_tool', version: '1.0.0', kind: 'file_read' as const, readOnly: true, module: 'file:///probe.js' };

  it('records a snake_case domain and refuses anything else, naming the option', () => {
    assert.equal(buildToolDescriptor({ ...base, domain: 'git' }, Probe).domain, 'git');
    assert.equal('domain' in buildToolDescriptor(base, Probe), false, 'no domain: core, and the manifest descriptor is unchanged');
    for (const bad of ['Git', '', 'has space', 42]) {
      assert.throws(() => buildToolDescriptor({ ...base, domain: bad as string }, Probe), (e: unknown) => e instanceof ToolDefinitionError && /options\.domain must match/.test(e.message));
    }
  });

  it('the ported specialist groups carry their domain; everyday tools are core', async () => {
    const { registry } = await loadPortedTools();
    const domainOf = (name: string) => registry.get(name)?.domain;
    assert.equal(domainOf('git_status'), 'git');
    assert.equal(domainOf('list_archive'), 'archive');
    assert.equal(domainOf('csv_query'), 'data');
    assert.equal(domainOf('list_snapshots'), 'snapshot');
    for (const core of ['replace_in_file', 'grep_files', 'run_command', 'web_fetch', 'calculate']) assert.equal(domainOf(core), undefined, core);
  });
});
