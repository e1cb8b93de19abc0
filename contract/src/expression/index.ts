/**
 * The expression language of rules, `filter=`, realtime and webhook filters (API.md, "Access rules: policy `rules`"):
 * parse (text -> tree with positions), resolve (names and types against a schema, paths as EXISTS), fold (the caller
 * put in), print (tree -> canonical text). Pure and browser-safe: the console parses as the owner types.
 */
export * from './syntax.js';
export { parseExpression } from './parser.js';
export { printExpression, printName, printNameSegment, printTextLiteral } from './print.js';
export { topLevelConjuncts, isCallerColumnCondition, hasCallerColumnConjunct } from './conjuncts.js';
export * from './resolved.js';
export { resolveExpression, checkExpression } from './resolve.js';
export { dependenciesOf, type ExpressionDependencies } from './dependencies.js';
export { forEachNode, someNode, operandsOf } from './walk.js';
export { foldExpression, foldExpressionForDescription, foldExpressionLeavingId, boundOnlyToColumns, ANON_CALLER, type ExpressionCaller, type DescribedCaller, type FoldedExpression } from './fold.js';
export { matchesLike } from './evaluate.js';
export { expressionSchemaOf, type SchemaSourceColumn, type SchemaSourceTable } from './schemaOf.js';
