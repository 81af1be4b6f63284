/**
 * isValidVersion answers a plain MAJOR.MINOR.PATCH without semver: for every version, its
 * answer is semver's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import valid from 'semver/functions/valid.js';
import { isValidVersion } from '../../src/util/semver.js';

const VERSIONS = [
  '1.0.0', '0.0.0', '10.20.30', '1.2.3-beta.1', '1.2.3+build.5', '1.2.3-rc.1+sha.abc', 'v1.2.3', '=1.2.3', ' 1.2.3', '1.2.3 ',
  '1.2.3\n', '01.2.3', '1.02.3', '1.2.03', '1.2', '1', '', '1.2.3.4', 'a.b.c', '1.2.-3', '-1.2.3',
  '9007199254740991.0.0', '9007199254740992.0.0', '0.9007199254740992.0', '0.0.99999999999999999999', '1.2.3-', '1.2.3+', '１.２.３',
];

describe('isValidVersion', () => {
  for (const version of VERSIONS) {
    test(JSON.stringify(version), () => {
      assert.equal(isValidVersion(version), valid(version) !== null);
    });
  }
});
