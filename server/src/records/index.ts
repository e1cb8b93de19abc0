/**
 * The record pipeline's face for the other rooms (admin, realtime, openapi, ops, services): what they may use of it.
 * Everything else in records/ is the pipeline's own; the linter holds them to this file (and the composition root to
 * routes.ts).
 */
export { answerRecordCall, type RecordCall, type RecordDeps } from './pipeline.js';
export { administeredTable } from './authorize.js';
export { missingOnCreate, validateRecordBody } from './body.js';
export { decodePathSegment, parseTarget, queryBytesOf, type RecordAction } from './parse.js';
export { parseListParams, parsePaging, parseOrder, parseValueList, single, type QueryParams } from './query/parse.js';
export { planConditions, type Condition } from './query/plan.js';
export { planFilter, type ExpressionFilter } from './query/filter.js';
export { conditionSql, SqlParameters } from './query/build.js';
export { scopeSql, scopeShape, expressionSql, idsSql, ExistsAliases } from './query/expression.js';
export { cursorKeyFrom } from './query/cursor.js';
export { embedNameOf, planSelection } from './embed/plan.js';
export { explainAccess, parseCheckInput, type CheckAnswer } from './explain.js';
