/**
 * The order of a union's literal values as the author wrote them (TypeScript's checker sorts
 * them its own way), so that a schema's `enum` lists them in source order. Split from
 * generate.ts; takes the TypeScript compiler generate.ts loaded (an optional peer).
 *
 * @module
 */
import type * as TJS from 'typescript-json-schema';
import type { JsonSchema } from '../types/tool.js';

type Ts = typeof TJS.ts;
type Type = TJS.ts.Type;
type TypeChecker = TJS.ts.TypeChecker;

/** The literal-order helpers over the compiler `ts`. */
export function literalOrdering(ts: Ts): {
  literalOrder: (type: TJS.ts.UnionType, checker: TypeChecker) => unknown[];
  collectLiterals: (node: TJS.ts.TypeNode, checker: TypeChecker, out: unknown[], depth: number) => void;
} {
  /** The value of a string, number, boolean or enum literal type. */
  const literalValue = (type: Type): unknown => {
    if (type.isStringLiteral()) return type.value;
    if (type.isNumberLiteral()) return type.value;
    if (type.flags & ts.TypeFlags.BooleanLiteral) return (type as unknown as { intrinsicName: string }).intrinsicName === 'true';
    return undefined;
  };

  /** Literal values in a type's syntax, in source order: unions, parentheses, aliases, enums. */
  const collectLiterals = (node: TJS.ts.TypeNode, checker: TypeChecker, out: unknown[], depth: number): void => {
    if (depth > 16) return;
    const add = (value: unknown) => {
      if (value !== undefined && !out.includes(value)) out.push(value);
    };
    if (ts.isUnionTypeNode(node)) {
      for (const member of node.types) collectLiterals(member, checker, out, depth + 1);
    } else if (ts.isParenthesizedTypeNode(node)) {
      collectLiterals(node.type, checker, out, depth + 1);
    } else if (ts.isArrayTypeNode(node)) {
      collectLiterals(node.elementType, checker, out, depth + 1);
    } else if (ts.isTypeReferenceNode(node)) {
      let symbol = checker.getSymbolAtLocation(node.typeName);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const alias = symbol?.declarations?.find(ts.isTypeAliasDeclaration);
      const declaredEnum = symbol?.declarations?.find(ts.isEnumDeclaration);
      if (alias !== undefined) collectLiterals(alias.type, checker, out, depth + 1);
      else if (declaredEnum !== undefined) for (const member of declaredEnum.members) add(checker.getConstantValue(member));
      else add(literalValue(checker.getTypeFromTypeNode(node)));
    } else {
      add(literalValue(checker.getTypeFromTypeNode(node)));
    }
  };

  /** The literal values of a union in the order they are written, when its declaration is known; else in the checker's order. */
  const literalOrder = (type: TJS.ts.UnionType, checker: TypeChecker): unknown[] => {
    const order: unknown[] = [];
    const alias = type.aliasSymbol?.declarations?.find(ts.isTypeAliasDeclaration);
    if (alias !== undefined) collectLiterals(alias.type, checker, order, 0);
    for (const member of type.types) {
      const value = literalValue(member);
      if (value !== undefined && !order.includes(value)) order.push(value);
    }
    return order;
  };

  return { literalOrder, collectLiterals };
}

/** Sort the `enum` arrays of a union's schema (and of its `anyOf` variants and `items`) by `order`. */
export function reorderEnums(schema: unknown, order: unknown[]): void {
  if (schema === null || typeof schema !== 'object' || order.length === 0) return;
  const s = schema as JsonSchema;
  if (Array.isArray(s.enum)) {
    const rank = (v: unknown) => {
      const i = order.indexOf(v);
      return i === -1 ? order.length : i;
    };
    s.enum = [...(s.enum as unknown[])].sort((a, b) => rank(a) - rank(b));
  }
  if (Array.isArray(s.anyOf)) for (const variant of s.anyOf) reorderEnums(variant, order);
  if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) reorderEnums(s.items, order);
}
