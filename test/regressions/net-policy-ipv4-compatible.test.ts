// Regression: ipaddr.js classifies IPv6 addresses it has no range for as `unicast`, so the
// IPv4-compatible spelling of loopback (`http://[::127.0.0.1]/`, which the URL parser writes
// `[::7f00:1]`) and of private addresses passed the SSRF check (case N1) and the request was
// attempted; only the host's routing stood in the way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockedRange, EMPTY_ALLOWLIST } from '../../tools-ported/common/net-policy.js';
import { safeFetch, SafeFetchError } from '../../tools-ported/common/safe-fetch.js';

describe('net policy: IPv6 outside global unicast (N1)', () => {
  it('IPv4-compatible and other ::/8 addresses are blocked', () => {
    for (const address of ['::7f00:1', '::a00:1', '::a9fe:a9fe', '::1:7f00:1', '4000::1']) {
      assert.notEqual(blockedRange(address), undefined, address);
    }
  });

  it('public IPv6 and IPv4 addresses stay allowed', () => {
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001::200e', '1.1.1.1']) assert.equal(blockedRange(address), undefined, address);
  });

  it('http://[::127.0.0.1]/ is refused before any connection', async () => {
    const error = await safeFetch('http://[::127.0.0.1]:9/', { allow: EMPTY_ALLOWLIST }, async () => 'reached').catch((e: unknown) => e);
    assert.ok(error instanceof SafeFetchError, String(error));
    assert.equal(error.reason, 'blocked');
    assert.equal(error.code, 'TOOL_ERROR');
  });
});
