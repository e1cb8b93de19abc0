import type { ApiKeyInfo, CreateApiKeyInput, CreatedApiKey, DataResponse } from '@basalt/contract';
import { segment } from './http.js';
import type { Send } from './transport.js';

/**
 * The signed-in user's API keys (`/auth/keys`): credentials for scripts and servers that act as this user under the
 * same policies. A key is shown once, by `create`; use it with `createClient(url, undefined, { apiKey })`.
 */
export class KeysClient {
  constructor(private readonly send: Send) {}

  /** `access`: `read` (reads only) or `read-write`; `expiresAt` (ISO 8601 or epoch ms) optional. */
  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    return (await this.send<DataResponse<CreatedApiKey>>({ method: 'POST', path: '/auth/keys', body: input })).data;
  }

  /** The user's keys, without the keys themselves; `lastUsedAt` to the minute. */
  async list(): Promise<ApiKeyInfo[]> {
    return (await this.send<DataResponse<ApiKeyInfo[]>>({ method: 'GET', path: '/auth/keys' })).data;
  }

  /** Revokes a key: every server process refuses it from its next request. Returns what it was. */
  async revoke(id: string): Promise<ApiKeyInfo> {
    return (await this.send<DataResponse<ApiKeyInfo>>({ method: 'DELETE', path: `/auth/keys/${segment(id)}` })).data;
  }
}
