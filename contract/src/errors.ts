/** Every error code the service answers with, and the HTTP status that goes with it. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  /** A provider's token names no email address, and the account needs one. */
  EMAIL_REQUIRED: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SIGNUP_DISABLED: 403,
  EMAIL_NOT_VERIFIED: 403,
  MFA_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** A provider's first sign-in matched an account it may not link to by itself (`details: { provider }`). */
  ACCOUNT_EXISTS: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  /** The identity provider refused or failed the sign-in (its answer did not pass the checks). */
  PROVIDER_ERROR: 502,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * `details` of a 409: the unique constraint that refused the write, or (`reference`) the referencing column that
 * still points at a row or table being deleted.
 */
export interface ConflictDetails {
  constraint: 'unique' | 'reference' | 'rule';
  /** `<table>.<column>`: for `reference`, the referencing table and column. */
  column: string;
  /** The element of a bulk insert that held the duplicate value. */
  index?: number;
}

/** `details` of a 403 from the record API: which rule refused the caller. */
export interface ForbiddenDetails {
  table: string;
  policy: string;
  /** Presets say `read|write`; under `rules` the operation (an `updateCheck` refusal says `update` with `check`). */
  operation: 'read' | 'write' | 'create' | 'update' | 'delete';
  check?: true;
  /** Set when the policy allows the key's user but the API key itself is read-only, or when the rule stopped compiling. */
  reason?: typeof READ_ONLY_KEY_REASON | typeof RULE_INVALID_REASON;
  /** A refused bulk insert or upsert: the first record the rule refused. */
  index?: number;
  /** A change by filter: the first row `updateCheck` refused (its id, as text). */
  id?: string;
}

/** `details.reason` of the 403 for an operation whose stored rule no longer compiles (a psql change). */
export const RULE_INVALID_REASON = 'rule_invalid';

/** `details.reason` of the 403 for a write by a `read` API key: a read-write key of the same user would be allowed. */
export const READ_ONLY_KEY_REASON = 'read_only_key';

/** `details` of a 400 VALIDATION_ERROR: the query parameter or the body field that failed. */
export interface ValidationDetails {
  /** The query parameter as sent (`score[gte]`), or `query` for the query string as a whole. */
  parameter?: string;
  field?: string;
  /** The element of a bulk insert. */
  index?: number;
  /** A CSV import: the 1-based line of the file where the element starts. */
  line?: number;
  /** A change by filter over `limit`: how many records matched. */
  matched?: number;
  /** Where in an expression (`rules.read`, `filter`) the problem is: 0-based UTF-16 code units. */
  position?: number;
}

/** `details` of the 401 for an access token past its `exp`: the client should refresh. */
export const TOKEN_EXPIRED_REASON = 'token_expired';

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details?: Record<string, unknown>;
  };
}
