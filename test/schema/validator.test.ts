import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileForeignValidator, compileValidator, MAX_REPORTED_ERRORS } from '../../src/schema/validator.js';

const POINT = { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false };
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer', minimum: 1 },
    size: { type: 'string', enum: ['small', 'medium', 'large'] },
    points: { type: 'array', items: POINT },
    id: { anyOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['name', 'count'],
  additionalProperties: false,
};

describe('validation errors: all problems of a call at once, each with its path', () => {
  const validate = compileValidator(SCHEMA, 'argument');

  it('names six problems in one message, each with the path of its value', () => {
    const message = validate({ count: 0, size: 'huge', points: [{ x: 1 }, { x: 'a', y: 2 }], extra: true });
    assert.equal(
      message,
      "6 problems: (1) missing required argument 'name'; (2) there is an unknown argument 'extra'; allowed: name, count, size, points, id; (3) argument 'count' must be >= 1; (4) argument 'size' must be one of \"small\", \"medium\", \"large\"; (5) missing required argument 'points[0].y'; (6) argument 'points[1].x' must be number; got string",
    );
  });

  it('a single problem reads as before', () => {
    assert.equal(validate({ name: 'a' }), "missing required argument 'count'");
    assert.equal(validate({ name: 'a', count: 1 }), undefined);
  });

  it('a failed union is one problem, not one per variant', () => {
    assert.equal(validate({ name: 'a', count: 1, id: true }), "argument 'id' must match a schema in anyOf");
  });

  it(`names at most ${MAX_REPORTED_ERRORS} problems and counts the rest`, () => {
    const points = Array.from({ length: 15 }, () => ({ x: 'no', y: 1 }));
    const message = validate({ name: 'a', count: 1, points })!;
    assert.match(message, /^15 problems: \(1\) argument 'points\[0\]\.x' must be number; got string; /);
    assert.match(message, /\(10\) argument 'points\[9\]\.x' must be number; got string; and 5 more$/);
    assert.doesNotMatch(message, /points\[10\]/);
  });

  it('foreign schemas (MCP servers) report every problem too', () => {
    const foreign = compileForeignValidator({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a', 'b'] }, 'argument');
    assert.equal(foreign({ a: 1 }), "2 problems: (1) missing required argument 'b'; (2) argument 'a' must be string; got number");
  });
});
