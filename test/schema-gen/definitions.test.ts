import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanDefinitionName, tidyDefinitions } from '../../src/schema-gen/definitions.js';

describe('definitions of generated schemas: stable names, only recursion kept', () => {
  it('names carry no module path, whatever form TypeScript prints it in', () => {
    const esm = 'import("/home/me/app/src/tree",{with:{"resolution-mode":"import"}}).Tree<import("/home/me/app/src/tree",{with:{"resolution-mode":"import"}}).Person>';
    assert.equal(cleanDefinitionName(esm), 'Tree_Person');
    assert.equal(cleanDefinitionName('import("/a/b").TreeNode'), 'TreeNode');
    assert.equal(cleanDefinitionName('"/a/b".TreeNode'), 'TreeNode');
    assert.equal(cleanDefinitionName('{kind:"add";left:Expr;right:Expr;}'), 'Object');
  });

  it('a root $ref is inlined, the recursion stays in $defs, renamed', () => {
    const node = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/import(%22%2Fx%22).TreeNode' } } } };
    const tidied = tidyDefinitions({ $ref: '#/definitions/import(%22%2Fx%22).TreeNode', description: 'A node.', definitions: { 'import("/x").TreeNode': node } });
    assert.deepEqual(tidied, {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#/$defs/TreeNode' } } },
      description: 'A node.',
      $defs: { TreeNode: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/TreeNode' } } } } },
    });
  });

  it('a definition used once and not by itself is inlined; unused ones are dropped', () => {
    const tidied = tidyDefinitions({
      type: 'object',
      properties: { a: { $ref: '#/definitions/A', description: 'Field a.' } },
      definitions: { A: { type: 'string', description: 'Type A.' }, Unused: { type: 'number' } },
    });
    assert.deepEqual(tidied, { type: 'object', properties: { a: { type: 'string', description: 'Field a.' } } });
  });

  it('mutual recursion collapses into one self-recursive definition', () => {
    const tidied = tidyDefinitions({
      type: 'object',
      properties: { p: { $ref: '#/definitions/Person' } },
      definitions: {
        Person: { type: 'object', properties: { dept: { $ref: '#/definitions/Dept' } } },
        Dept: { type: 'object', properties: { staff: { type: 'array', items: { $ref: '#/definitions/Person' } } } },
      },
    });
    assert.deepEqual(Object.keys(tidied.$defs as object), ['Person']);
    assert.deepEqual((tidied.$defs as Record<string, unknown>).Person, {
      type: 'object',
      properties: { dept: { type: 'object', properties: { staff: { type: 'array', items: { $ref: '#/$defs/Person' } } } } },
    });
  });

  it('two types of one name get distinct names; a dangling $ref is an error', () => {
    const tidied = tidyDefinitions({
      type: 'object',
      properties: { a: { $ref: '#/definitions/import(%22%2Fa%22).Node' }, b: { $ref: '#/definitions/import(%22%2Fb%22).Node' }, c: { $ref: '#/definitions/import(%22%2Fa%22).Node' }, d: { $ref: '#/definitions/import(%22%2Fb%22).Node' } },
      definitions: { 'import("/a").Node': { type: 'string' }, 'import("/b").Node': { type: 'number' } },
    });
    assert.deepEqual(tidied.$defs, { Node: { type: 'string' }, Node_2: { type: 'number' } });
    assert.throws(() => tidyDefinitions({ $ref: '#/definitions/Missing' }), /unresolved \$ref "#\/definitions\/Missing"/);
  });
});
