/**
 * Tidying the definitions typescript-json-schema leaves in a generated schema: plain JSON in,
 * plain JSON out, no TypeScript compiler (so it is tested without one).
 *
 * typescript-json-schema puts a type it meets twice on one path (a recursive type) into
 * `definitions`, under a name built from the type's text, and refers to it with `$ref`. Those
 * names can hold the absolute path of the source file (`import("/home/me/app/src/tree",
 * {with:{"resolution-mode":"import"}}).TreeNode`, in ESM projects), so a schema would differ
 * between two checkouts and the path would reach models; and the root itself can be a bare
 * `$ref`, which no provider accepts as a tool's input. {@link tidyDefinitions}:
 * - inlines the root when it is a `$ref` (the definition stays for the recursion);
 * - inlines every definition that is used once and not by itself, and drops unused ones, so
 *   only recursive types keep a definition;
 * - names the rest from the type's name alone (`Tree<Person>` becomes `Tree_Person`, an
 *   anonymous object literal `Object`), unique within the schema, and moves them to `$defs`
 *   (the 2020-12 name; in draft-07 a `$ref` is a plain JSON pointer, so ajv and every
 *   provider resolve `#/$defs/Name` the same way).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';

const PREFIX = '#/definitions/';

/** Where the tidied definitions live. */
const DEFS_KEYWORD = '$defs';

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Visit every `$ref` node under `node` (objects and arrays; `enum`, `const`, `default` values too, harmlessly). */
function forEachRef(node: unknown, visit: (ref: Node) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) forEachRef(child, visit);
    return;
  }
  if (!isNode(node)) return;
  if (typeof node.$ref === 'string') visit(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    forEachRef(value, visit);
  }
}

function refName(ref: string): string | undefined {
  if (!ref.startsWith(PREFIX)) return undefined;
  try {
    return decodeURIComponent(ref.slice(PREFIX.length));
  } catch {
    return undefined;
  }
}

/**
 * The name of a definition without module paths, as an identifier (`[A-Za-z0-9_]`).
 * @param raw - typescript-json-schema's name (`import("/abs/tree").Tree<import("/abs/tree").Person>`).
 */
export function cleanDefinitionName(raw: string): string {
  let name = raw
    // import("/abs/path").Name and import("/abs/path",{with:{"resolution-mode":"import"}}).Name
    .replace(/\bimport\("(?:[^"\\]|\\.)*"(?:,\s*\{[^()]*\})?\)\./g, '')
    // "/abs/path".Name (a fully qualified symbol name)
    .replace(/"(?:[^"\\]|\\.)*"\./g, '');
  if (name.startsWith('{')) name = 'Object';
  name = name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return name === '' ? 'Definition' : name;
}

/** `{ $ref, ...annotations }` replaced by the definition, the annotations beside the ref winning. */
function inline(refNode: Node, definition: unknown): void {
  const { $ref: _ref, ...siblings } = refNode;
  for (const key of Object.keys(refNode)) delete refNode[key];
  Object.assign(refNode, structuredClone(definition), siblings);
}

/**
 * Tidy the `definitions` of a generated schema (see the module comment). Mutates and returns
 * `schema`.
 * @throws Error when a `$ref` points to a definition that is not there (a generator bug).
 */
export function tidyDefinitions(schema: JsonSchema): JsonSchema {
  const defs: Record<string, unknown> = isNode(schema.definitions) ? { ...(schema.definitions as Node) } : {};
  delete schema.definitions;
  const lookup = (ref: string): unknown => {
    const name = refName(ref);
    if (name === undefined || !Object.hasOwn(defs, name)) throw new Error(`unresolved $ref ${JSON.stringify(ref)}`);
    return defs[name];
  };

  // The root is a bare reference (run(args: TreeNode) with a recursive TreeNode): inline it.
  for (let guard = 0; typeof schema.$ref === 'string'; guard++) {
    if (guard > 32) throw new Error('the root $ref never reaches a schema');
    inline(schema, lookup(schema.$ref));
  }

  // Inline definitions used once and not by themselves; drop unused ones; repeat to a fixpoint.
  for (let changed = true; changed; ) {
    changed = false;
    const reachable = new Set<string>();
    const walk = (node: unknown): void =>
      forEachRef(node, (r) => {
        const name = refName(r.$ref as string);
        if (name === undefined || reachable.has(name)) return;
        lookup(r.$ref as string);
        reachable.add(name);
        walk(defs[name]);
      });
    walk(schema);
    for (const name of Object.keys(defs)) if (!reachable.has(name)) delete defs[name];
    const uses = new Map<string, Node[]>();
    forEachRef([schema, ...Object.values(defs)], (r) => {
      const name = refName(r.$ref as string)!;
      uses.set(name, [...(uses.get(name) ?? []), r]);
    });
    for (const [name, sites] of uses) {
      if (sites.length !== 1) continue;
      let selfReferencing = false;
      forEachRef(defs[name], (r) => (selfReferencing ||= refName(r.$ref as string) === name));
      if (selfReferencing) continue;
      inline(sites[0]!, defs[name]);
      delete defs[name];
      changed = true;
      break;
    }
  }

  const names = Object.keys(defs);
  if (names.length === 0) return schema;
  const renamed = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of names) {
    const base = cleanDefinitionName(name);
    let next = base;
    for (let i = 2; taken.has(next); i++) next = `${base}_${i}`;
    taken.add(next);
    renamed.set(name, next);
  }
  const tidied: Record<string, unknown> = {};
  for (const name of names) tidied[renamed.get(name)!] = defs[name];
  forEachRef([schema, tidied], (r) => {
    r.$ref = `#/${DEFS_KEYWORD}/${renamed.get(refName(r.$ref as string)!)!}`;
  });
  const sorted: Record<string, unknown> = {};
  for (const name of [...taken].sort()) sorted[name] = tidied[name];
  schema[DEFS_KEYWORD] = sorted;
  return schema;
}
