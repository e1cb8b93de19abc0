export { createClient, BasaltClient, type ClientOptions } from './client.js';
export { AuthClient } from './auth.js';
export { AdminClient, type InviteOptions, type OutboxQuery, type UserListQuery } from './admin.js';
export {
  codeChallengeFor,
  createPkcePair,
  parseEmailLink,
  type EmailChangeProof,
  type EmailLink,
  type EmailSignInOptions,
  type MailOptions,
  type PendingSignUp,
  type SignUpInput,
} from './email.js';
export { KeysClient } from './keys.js';
export { WebhooksClient, type DeliveryPage, type DeliveryQuery, type WebhookChange } from './webhooks.js';
export { MfaClient, isMfaPending, type MfaPending, type MfaProof } from './mfa.js';
export { parseProviderReturn, type ProviderRedirectOptions, type ProviderReturn } from './providers.js';
export type { RealtimeEvent, RealtimeEventType, RealtimeListener, RealtimeStatus, RealtimeStatusListener } from './realtime.js';
export { TableClient, type AdminTableClient } from './tableClient.js';
export type { AggregateKey, AggregateOrder, AggregatePage, AggregateQuery, AggregateRow, Aggregates, ComparableColumn, NumericColumn } from './aggregates.js';
export {
  DEFAULT_RESUMABLE_ABOVE,
  DEFAULT_URL_EXPIRES_IN,
  type DownloadOptions,
  type FileBody,
  type FileRow,
  type ReplaceOptions,
  type UploadOptions,
  type UploadProgress,
  type UrlOptions,
} from './files.js';
export { ApiError, NetworkError, isApiError, isNetworkError } from './errors.js';
export { memoryStorage, type StorageAdapter } from './session/storage.js';
export type { Session, AuthChangeEvent } from './session/session.js';
export type { AuthChangeListener } from './session/sessionManager.js';
export type { FetchLike } from './http.js';
export type { LockManagerLike } from './session/refreshLock.js';
export type {
  AnyOperators,
  BooleanOperators,
  ChangeOptions,
  ChangeQuery,
  ChangeResult,
  Condition,
  CountMode,
  CsvQuery,
  Filter,
  FilterValue,
  IsTest,
  JsonOperators,
  Operators,
  RangeOperators,
  Selected,
  Selection,
  TextOperators,
  InsertOf,
  ListResult,
  OrderTerm,
  RecordId,
  RowOf,
  TableListQuery,
  TableName,
  UntypedDatabase,
  UntypedRow,
  UntypedTable,
  UpdateOf,
  Upserted,
} from './types.js';
export type {
  TotpEnrollment,
  AdminSettings,
  AdminUser,
  EmailKind,
  EmailLinkKind,
  EmailProof,
  EmailVerificationMode,
  Invitation,
  OutboxMail,
  OutboxStatus,
  SentResult,
  SmtpSettings,
  VerifyResult,
  ApiKeyAccess,
  ApiKeyInfo,
  CreateApiKeyInput,
  CreatedApiKey,
  RateLimitedDetails,
  ResetLink,
  SessionInfo,
  AuthResult,
  AuthSettings,
  AuthUser,
  ColumnDefinition,
  ColumnInfo,
  ColumnType,
  CreateIndexInput,
  CreateTableInput,
  Credentials,
  ErrorCode,
  BucketInfo,
  FileRecord,
  TransformOptions,
  Policy,
  Profile,
  IndexInfo,
  IndexKind,
  Overview,
  OverviewPoint,
  Role,
  TableInfo,
  TokenPair,
  DeliveryStatus,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
  WebhookInput,
  WebhookPayload,
  WebhookWithSecret,
} from '@basalt/contract';
