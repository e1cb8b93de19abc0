import type {
  AdminSettings,
  AdminUser,
  AuthUser,
  ColumnDefinition,
  CreateIndexInput,
  CreateTableInput,
  Invitation,
  ListResponse,
  OutboxMail,
  OutboxStatus,
  Overview,
  Policy,
  ResetLink,
  RuleCheckAnswer,
  RuleCheckInput,
  Rules,
  SentResult,
  TableInfo,
  TypesResult,
} from '@basalt/contract';
import { segment, type Http } from './http.js';
import { listParameters } from './queryParameters.js';
import { Channel, type RealtimeListener, type RealtimeStatusListener, type StreamCredentials } from './realtime.js';
import { TableClient, type AdminTableClient } from './tableClient.js';
import { bodiesOf, sendForData, type Exchange, type Send } from './transport.js';
import { WebhooksClient } from './webhooks.js';
import type { CountMode, InsertOf, ListResult, Relations, RelationshipsOf, RowOf, Selected, Selection, TableListQuery, TableName, UpdateOf } from './types.js';

export interface UserListQuery {
  limit?: number;
  offset?: number;
}

/** `admin.outbox`: newest first, optionally only the mails in one status. */
export interface OutboxQuery extends UserListQuery {
  status?: OutboxStatus;
}

/** `admin.users.invite`: the mail's language, and where its link leads once the password is set. */
export interface InviteOptions {
  locale?: string;
  redirectTo?: string;
}

/**
 * The owner's tools under `/admin/*`: tables, columns, policies, every record, users, settings and type generation.
 * A member gets 403 FORBIDDEN on all of it, anon and signed-out callers 401.
 */
export class AdminClient<DB> {
  /** The webhooks: every committed change of chosen tables delivered, signed, to a URL (docs/api.md, "Webhooks"). */
  readonly webhooks: WebhooksClient;

  private readonly send: Send;

  constructor(
    private readonly exchange: Exchange,
    private readonly http?: Http,
    private readonly credentials?: StreamCredentials,
  ) {
    this.send = bodiesOf(exchange);
    this.webhooks = new WebhooksClient(this.send);
  }

  /**
   * Every change of a table, every row whatever its policy (the owner's live view); `onStatus` says when the stream is
   * open (and when it reconnects). Returns the unsubscribe.
   */
  subscribe(table: string, onEvent: RealtimeListener<Record<string, unknown>>, onStatus?: RealtimeStatusListener): () => void {
    if (!this.http || !this.credentials) throw new TypeError('this admin client cannot stream');
    const channel = new Channel(this.http, this.credentials, () => ({ path: `${this.tablePath(table)}/realtime`, query: {} }));
    channel.listeners.add({ table, onEvent, ...(onStatus ? { onStatus } : {}) });
    channel.start();
    return () => channel.stop();
  }

  private data<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return sendForData<T>(this.send, method, path, body);
  }

  private tablePath(name: string): string {
    return `/admin/tables/${segment(name)}`;
  }

  readonly tables = {
    list: (): Promise<TableInfo[]> => this.data('GET', '/admin/tables'),
    create: (input: CreateTableInput): Promise<TableInfo> => this.data('POST', '/admin/tables', input),
    get: (name: string): Promise<TableInfo> => this.data('GET', this.tablePath(name)),
    /** Takes effect on the very next request, on every server process. */
    setPolicy: (name: string, policy: Policy): Promise<TableInfo> => this.data('PATCH', this.tablePath(name), { policy }),
    /** Puts the table under policy `rules`: one expression per operation, an absent one refusing it (docs/api.md). */
    setRules: (name: string, rules: Rules): Promise<TableInfo> => this.data('PATCH', this.tablePath(name), { policy: 'rules', rules }),
    /** Drops the table and its data; returns the table as it was. */
    drop: (name: string): Promise<TableInfo> => this.data('DELETE', this.tablePath(name)),
  };

  readonly columns = {
    add: (table: string, column: ColumnDefinition): Promise<TableInfo> =>
      this.data('POST', `${this.tablePath(table)}/columns`, column),
    drop: (table: string, column: string): Promise<TableInfo> =>
      this.data('DELETE', `${this.tablePath(table)}/columns/${segment(column)}`),
  };

  /** Indexes are built concurrently: the table keeps serving; the promise settles once the index is built. */
  readonly indexes = {
    create: (table: string, input: CreateIndexInput): Promise<TableInfo> => this.data('POST', `${this.tablePath(table)}/indexes`, input),
    drop: (table: string, index: string): Promise<TableInfo> => this.data('DELETE', `${this.tablePath(table)}/indexes/${segment(index)}`),
  };

  readonly users = {
    /** Each with `verified`, `hasPassword`, `locale`, `identities` and `mfa`. */
    list: async (query: UserListQuery = {}): Promise<ListResponse<AdminUser>> => {
      const body = await this.send<ListResponse<AdminUser>>({ method: 'GET', path: '/admin/users', query: { ...query } });
      return { data: body.data, total: body.total };
    },
    /**
     * Creates a member without a password and mails it a link (and code) to set one (`auth.reset`), which also proves
     * the address; works with sign-ups closed. A taken address is 409 CONFLICT naming `users.email`.
     */
    invite: (email: string, options: InviteOptions = {}): Promise<Invitation> => this.data('POST', '/admin/users/invite', { email, ...options }),
    /** Mails the invite again to an account that has no password yet, else the verification mail (400 if verified). */
    resend: (id: string): Promise<SentResult & { kind: 'invite' | 'verify' }> =>
      this.data('POST', `/admin/users/${segment(id)}/resend`),
    /** Deletes an account with its sessions, keys and the rows its owner columns cascade to; not the owner's own. */
    delete: (id: string): Promise<AuthUser> => this.data('DELETE', `/admin/users/${segment(id)}`),
    /** Ends every session and revokes every API key of the account. */
    signOut: async (id: string): Promise<void> => {
      await this.data('POST', `/admin/users/${segment(id)}/signout`);
    },
    /** A single-use token for `auth.resetPassword`, valid one hour: the way to help a user without a mail server. */
    resetLink: (id: string): Promise<ResetLink> => this.data('POST', `/admin/users/${segment(id)}/reset-link`),
    /**
     * Turns off a member's second factor (for one who lost both the app and the recovery codes): the password alone
     * signs in again. No factor on: 404.
     */
    removeMfa: async (id: string): Promise<void> => {
      await this.data('DELETE', `/admin/users/${segment(id)}/mfa`);
    },
  };

  readonly rules = {
    /** Whether a caller (a user id, or `'anon'`) may do an operation, on a row or a record, and why: nothing is written. */
    check: (table: string, input: RuleCheckInput): Promise<RuleCheckAnswer> => this.data('POST', `${this.tablePath(table)}/rules/check`, input),
  };

  /**
   * Every record of a table, whatever its policy, with the query language of `list`: the console's data browser.
   * With `as` (a user id, or `'anon'`), what that caller would get from `from(table).list(...)` instead.
   */
  async records<
    T extends TableName<DB>,
    const S extends Selection<RowOf<DB[T]>, Relations<DB, RelationshipsOf<DB[T]>>> | undefined = undefined,
    C extends CountMode | undefined = undefined,
  >(
    table: T,
    query: Omit<TableListQuery<RowOf<DB[T]>>, 'select'> & { select?: S; count?: C; as?: string } = {},
  ): Promise<ListResult<Selected<RowOf<DB[T]>, S, Relations<DB, RelationshipsOf<DB[T]>>>, C>> {
    const { as, ...list } = query;
    if (as === undefined) return this.from(table).list(list);
    const body = await this.send({ method: 'GET', path: `${this.tablePath(table)}/records`, query: { ...listParameters(list), as } });
    return body as ListResult<Selected<RowOf<DB[T]>, S, Relations<DB, RelationshipsOf<DB[T]>>>, C>;
  }

  /** Write any record of a table as the owner: no policy, the owner column is an ordinary column here. */
  from<T extends TableName<DB>>(table: T): AdminTableClient<RowOf<DB[T]>, InsertOf<DB[T]>, UpdateOf<DB[T]>, Relations<DB, RelationshipsOf<DB[T]>>> {
    return new TableClient(this.exchange, `${this.tablePath(table)}/records`);
  }

  /** The anon key and the project settings, with whether mail goes out (`smtp`). */
  settings(): Promise<AdminSettings> {
    return this.data('GET', '/admin/settings');
  }

  /**
   * The mails the project sent or is sending, newest first. `link` and `code` are shown only for mails kept `unsent`
   * (no SMTP server configured): the owner passes them on by hand.
   */
  async outbox(query: OutboxQuery = {}): Promise<ListResponse<OutboxMail>> {
    const body = await this.send<ListResponse<OutboxMail>>({ method: 'GET', path: '/admin/outbox', query: { ...query } });
    return { data: body.data, total: body.total };
  }

  /** Sends a queued mail now instead of at its next attempt; a sent, failed or unsent one is 400. */
  retryMail(id: string): Promise<OutboxMail> {
    return this.data('POST', `/admin/outbox/${segment(id)}/retry`);
  }

  /** Sends a `test` mail through the outbox: whether the SMTP settings work shows in `outbox()`. */
  sendTestEmail(to: string): Promise<SentResult> {
    return this.data('POST', '/admin/email/test', { to });
  }

  /** The last hour of traffic in 10 s buckets, oldest first, summed over every worker: what the console charts. */
  overview(): Promise<Overview> {
    return this.data('GET', '/admin/overview');
  }

  /** The TypeScript source of the project's `Database` type, ready to save as a `.ts` file. */
  async types(): Promise<string> {
    return (await this.data<TypesResult>('GET', '/admin/types')).typescript;
  }
}
