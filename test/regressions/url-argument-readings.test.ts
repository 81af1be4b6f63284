// Regression (cases N1 and C4's family "a grant that covers more than the person granted",
// attack s20): a policy rule's `args` glob on a URL was matched against the text the model
// wrote, while the tools fetch what the WHATWG parser reads. `args = { url =
// "https://*.example.com/**" }` allowed `https://evil.com?.example.com/x` (host evil.com: the
// host ends at `?`, `#` or `\`), and a deny on `https://evil.com/**` let through
// `https://EVIL.com/x`, `https://evil.com./x`, `https://evil.com:443/x`, `https://u@evil.com/x`,
// `https://%65vil.com/x`, full-width letters, a leading space, `https:evil.com/x` and
// `https://evil.com?x`, each a request to evil.com. A URL is now matched as written and as
// parsed (`src/policy/argument-readings.ts`): an allow needs every reading, a deny any one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ToolExecutionResult } from 'toolgate';
import { parsePolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules } from '../../src/policy/policy-rules.js';
import { policyExecutor } from '../policy-executor.js';

const POLICY = `
[[rules]]
tool = "http_request"
args = { url = "https://*.example.com/**" }
action = "allow"

[[rules]]
tool = "web_fetch"
args = { url = "https://evil.com/**" }
action = "deny"

[[rules]]
tool = "web_fetch"
args = { url = "https://docs.example.com/public/**" }
action = "allow"
`;

describe('URL arguments are matched by policy rules as the tools read them', () => {
  const fx = policyExecutor({ userFile: 'config/policy.toml', rules: POLICY });
  const policyVerdict = (r: ToolExecutionResult): string | undefined => r.decisions?.find((d) => d.decider === 'policy')?.verdict;

  test('N1/C4: an allow for https://*.example.com/** does not cover a URL whose host is another one', async () => {
    // 127.0.0.1 as the host: were the call allowed, the fetch stops at the address check (no traffic leaves).
    for (const url of ['https://127.0.0.1?.example.com/x', 'https://127.0.0.1#.example.com/x', 'https://127.0.0.1\\.example.com/x']) {
      const r = await fx.executor.execute({ name: 'http_request', arguments: { method: 'POST', url } }, { approvalMode: 'deny-all' });
      assert.notEqual(policyVerdict(r), 'allow', `${url}: ${r.error}`);
      assert.equal(r.success, false);
    }
    const ok = await fx.executor.execute({ name: 'http_request', arguments: { method: 'POST', url: 'https://api.example.com/v1' } }, { approvalMode: 'deny-all' });
    assert.equal(policyVerdict(ok), 'allow', 'the host the rule names is still allowed by it');
  });

  test('N1: a deny for https://evil.com/** catches every spelling the URL parser reads as evil.com', async () => {
    const spellings = [
      'https://evil.com/x', 'https://EVIL.com/x', 'HTTPS://evil.com/x', 'https://evil.com./x', 'https://evil.com:443/x', 'https://u:p@evil.com/x',
      'https://%65vil.com/x', 'https://\uff45\uff56\uff49\uff4c.com/x', '  https://evil.com/x', '\ufeffhttps://evil.com/x', 'https:evil.com/x', 'https:/evil.com/x',
      'https:\\\\evil.com/x', 'https://ev\til.com/x', 'https://evil.com?x', 'https://evil.com#x', 'https://evil.com',
    ];
    for (const url of spellings) {
      const r = await fx.executor.execute({ name: 'web_fetch', arguments: { url } }, { approvalMode: 'deny-all' });
      assert.equal(policyVerdict(r), 'deny', `${JSON.stringify(url)}: ${JSON.stringify(r.decisions)}`);
    }
  });

  test('N1: percent-escapes in the path are read decoded by a deny, and keep an allow from covering more', async () => {
    const escaped = await fx.executor.execute({ name: 'web_fetch', arguments: { url: 'https://evil.com/%61dmin' } }, { approvalMode: 'deny-all' });
    assert.equal(policyVerdict(escaped), 'deny');
    const climb = await fx.executor.execute({ name: 'web_fetch', arguments: { url: 'https://docs.example.com/public/..%2fadmin' } }, { approvalMode: 'deny-all' });
    assert.notEqual(policyVerdict(climb), 'allow', JSON.stringify(climb.decisions));
    const plain = await fx.executor.execute({ name: 'web_fetch', arguments: { url: 'https://docs.example.com/public/a%20b.html' } }, { approvalMode: 'deny-all' });
    assert.equal(policyVerdict(plain), 'allow', JSON.stringify(plain.decisions));
  });
});

describe('a deny or ask glob on an argument that is not a string', () => {
  const file = parsePolicyFile('[[rules]]\naction = "allow"\n\n[[rules]]\ntool = "fetch_many"\nargs = { urls = "https://evil.com/**" }\naction = "deny"\n\n[[rules]]\ntool = "fetch_many"\nargs = { force = "true" }\naction = "ask"\n', '/test/policy.toml');
  const verdict = (args: Record<string, unknown>): string | undefined => matchPolicyRules(file, { tool: 'fetch_many', kind: 'network', args, paths: [] })?.verdict;

  test('N1: a list holding a denied URL is denied, a boolean matches by its text; an allow glob still needs a string', () => {
    assert.equal(verdict({ urls: ['https://ok.example.com/', 'https://EVIL.com/x'] }), 'deny');
    assert.equal(verdict({ urls: ['https://ok.example.com/'] }), 'allow');
    assert.equal(verdict({ force: true }), 'ask');
    const allowList = parsePolicyFile('[[rules]]\ntool = "fetch_many"\nargs = { urls = "https://ok.example.com/**" }\naction = "allow"\n', '/test/policy.toml');
    assert.equal(matchPolicyRules(allowList, { tool: 'fetch_many', kind: 'network', args: { urls: ['https://ok.example.com/a'] }, paths: [] }), undefined);
  });
});
