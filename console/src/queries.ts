import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DeliveryQuery, OutboxQuery, TableListQuery } from '@basalt/client';
import { OVERVIEW_BUCKET_SECONDS } from '@basalt/contract';
import { client } from './api';

/** Query keys in one place, so a mutation invalidates exactly what it changed. */
export const keys = {
  authSettings: ['auth-settings'] as const,
  tables: ['tables'] as const,
  table: (name: string) => ['tables', name] as const,
  records: (name: string) => ['records', name] as const,
  recordPage: (name: string, query: TableListQuery) => ['records', name, query] as const,
  /** A file's bytes as the console shows them (a thumbnail, a preview): its sha256 changes with its content. */
  fileView: (table: string, id: string, sha256: string, view: string) => ['file-view', table, id, sha256, view] as const,
  users: (offset: number, limit: number) => ['users', offset, limit] as const,
  allUsers: ['users'] as const,
  outbox: (query: OutboxQuery) => ['outbox', query] as const,
  allOutbox: ['outbox'] as const,
  settings: ['admin-settings'] as const,
  types: ['types'] as const,
  sessions: ['sessions'] as const,
  me: ['me'] as const,
  apiKeys: ['api-keys'] as const,
  openapi: ['openapi'] as const,
  overview: ['overview'] as const,
  webhooks: ['webhooks'] as const,
  webhook: (id: string) => ['webhooks', id] as const,
  deliveries: (id: string, query: DeliveryQuery) => ['webhook-deliveries', id, query] as const,
  allDeliveries: (id: string) => ['webhook-deliveries', id] as const,
};

export function useAuthSettings() {
  return useQuery({ queryKey: keys.authSettings, queryFn: () => client.auth.settings() });
}

export function useTables() {
  return useQuery({ queryKey: keys.tables, queryFn: () => client.admin.tables.list() });
}

export function useTable(name: string) {
  return useQuery({ queryKey: keys.table(name), queryFn: () => client.admin.tables.get(name) });
}

export function useRecords(name: string, query: TableListQuery) {
  return useQuery({
    queryKey: keys.recordPage(name, query),
    queryFn: () => client.admin.records(name, query),
    // Paging, sorting and filtering keep the old rows on screen until the new ones arrive, instead of flashing empty.
    placeholderData: keepPreviousData,
  });
}

export function useUsers(offset: number, limit: number) {
  return useQuery({
    queryKey: keys.users(offset, limit),
    queryFn: () => client.admin.users.list({ offset, limit }),
    placeholderData: keepPreviousData,
  });
}

/**
 * The mail outbox, newest first: asked again whenever its screen opens, and every few seconds while a mail on the
 * page is still queued, as the sender works in the background.
 */
export function useOutbox(query: OutboxQuery) {
  return useQuery({
    queryKey: keys.outbox(query),
    queryFn: () => client.admin.outbox(query),
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: (current) => (current.state.data?.data.some((mail) => mail.status === 'queued') ? 5000 : false),
  });
}

/** The owner's webhooks (never their secrets). */
export function useWebhooks() {
  return useQuery({ queryKey: keys.webhooks, queryFn: () => client.admin.webhooks.list() });
}

export function useWebhook(id: string) {
  return useQuery({ queryKey: keys.webhook(id), queryFn: () => client.admin.webhooks.get(id) });
}

/**
 * A webhook's deliveries, newest first: asked again every few seconds while its screen shows them (changes keep
 * arriving), every 2 s while one on the page is still pending or failed.
 */
export function useDeliveries(id: string, query: DeliveryQuery) {
  return useQuery({
    queryKey: keys.deliveries(id, query),
    queryFn: () => client.admin.webhooks.deliveries(id, query),
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: (current) => (current.state.data?.data.some((delivery) => delivery.status === 'pending' || delivery.status === 'failed') ? 2000 : 5000),
  });
}

export function useAdminSettings() {
  return useQuery({ queryKey: keys.settings, queryFn: () => client.admin.settings(), staleTime: Infinity });
}

export function useTypes() {
  return useQuery({ queryKey: keys.types, queryFn: () => client.admin.types() });
}

/** The signed-in owner's own devices. */
export function useSessions() {
  return useQuery({ queryKey: keys.sessions, queryFn: () => client.auth.sessions() });
}

/** The signed-in owner's profile, with its second factor (`mfa`) and linked identity providers (`identities`). */
export function useMe() {
  return useQuery({ queryKey: keys.me, queryFn: () => client.auth.me() });
}

/** The signed-in owner's own API keys (never the keys themselves). */
export function useApiKeys() {
  return useQuery({ queryKey: keys.apiKeys, queryFn: () => client.auth.keys.list() });
}

/**
 * The project's OpenAPI document as the owner sees it: asked again each time its screen opens, as tables, columns and
 * policies change on other screens.
 */
export function useOpenApi() {
  return useQuery({ queryKey: keys.openapi, queryFn: () => client.openapi(), staleTime: 0 });
}

/** The last hour of traffic, asked again every bucket while a screen shows it (a background tab stops asking). */
export function useOverview() {
  return useQuery({
    queryKey: keys.overview,
    queryFn: () => client.admin.overview(),
    refetchInterval: OVERVIEW_BUCKET_SECONDS * 1000,
    staleTime: 0,
  });
}
