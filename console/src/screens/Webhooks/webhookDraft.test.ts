import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@basalt/client';
import type { Webhook } from '@basalt/contract';
import { changeOf, checkWebhook, draftOf, newHeaderDraft, newWebhookDraft, toggleEvent, webhookErrors } from './webhookDraft';

// errors.ts names the API's address: no browser here to read it from.
vi.mock('../../apiUrl', () => ({ API_URL: 'http://api.test' }));

const webhook: Webhook = {
  id: 'w1',
  url: 'https://hooks.example.com/basalt',
  tables: ['orders'],
  events: ['insert', 'update', 'delete'],
  filter: "status = 'paid'",
  headers: { Authorization: 'Bearer x' },
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  previousSecretUntil: null,
};

describe('the webhook form', () => {
  it('starts with the default events (no truncate), enabled, no table chosen', () => {
    expect(newWebhookDraft()).toEqual({ url: '', everyTable: false, tables: [], events: ['insert', 'update', 'delete'], filter: '', headers: [], enabled: true });
  });

  it('keeps events in their usual order whatever order they are ticked in', () => {
    expect(toggleEvent(['update'], 'insert')).toEqual(['insert', 'update']);
    expect(toggleEvent(['insert', 'update', 'delete'], 'truncate')).toEqual(['insert', 'update', 'delete', 'truncate']);
    expect(toggleEvent(['insert', 'update'], 'insert')).toEqual(['update']);
  });

  it('sends what was filled in: every table as "*", an empty filter as null, blank header rows left out', () => {
    const draft = { ...newWebhookDraft(), url: ' https://h.example.com/x ', everyTable: true, headers: [newHeaderDraft('X-Token', 'abc'), newHeaderDraft()] };
    expect(checkWebhook(draft)).toEqual({
      errors: {},
      input: { url: 'https://h.example.com/x', tables: '*', events: ['insert', 'update', 'delete'], filter: null, headers: { 'X-Token': 'abc' }, enabled: true },
    });
  });

  it('names the field of each problem it finds itself', () => {
    const { errors, input } = checkWebhook({
      ...newWebhookDraft(),
      url: 'ftp://example.com',
      events: [],
      filter: 'total > 1',
      everyTable: true,
      headers: [newHeaderDraft('webhook-id', 'x')],
    });
    expect(input).toBeUndefined();
    expect(Object.keys(errors).sort()).toEqual(['events', 'filter', 'headers', 'url']);
    expect(checkWebhook({ ...newWebhookDraft(), url: 'https://a.example/' }).errors).toEqual({ tables: expect.any(String) });
    expect(checkWebhook({ ...newWebhookDraft(), url: 'https://u:p@a.example/', tables: ['t'] }).errors.url).toMatch(/header/);
    const twice = checkWebhook({ ...newWebhookDraft(), url: 'https://a.example/', tables: ['t'], headers: [newHeaderDraft('X-A', '1'), newHeaderDraft('x-a', '2')] });
    expect(twice.errors.headers).toBe('x-a is named twice.');
    expect(checkWebhook({ ...newWebhookDraft(), url: 'https://a.example/', tables: ['t'], headers: [newHeaderDraft('', 'v')] }).errors.headers).toMatch(/name/);
  });

  it('edits send only what changed', () => {
    const same = checkWebhook(draftOf(webhook)).input!;
    expect(changeOf(webhook, same)).toEqual({});
    expect(changeOf(webhook, { ...same, enabled: false, filter: null })).toEqual({ enabled: false, filter: null });
    expect(changeOf(webhook, { ...same, tables: '*', headers: {} })).toEqual({ tables: '*', headers: {} });
    expect(changeOf({ ...webhook, tables: ['a', 'b'] }, { ...same, tables: ['b', 'a'] })).toEqual({});
  });

  it('puts a server refusal under the field it names, the first part of a path included', () => {
    const refusal = (details: Record<string, unknown>) => new ApiError(400, 'VALIDATION_ERROR', 'no', details);
    expect(webhookErrors(refusal({ field: 'url' }))).toEqual({ fields: { url: 'no' }, form: undefined });
    expect(webhookErrors(refusal({ field: 'events.1' }))).toEqual({ fields: { events: 'no' }, form: undefined });
    expect(webhookErrors(refusal({ field: 'body' }))).toEqual({ fields: {}, form: 'no' });
    expect(webhookErrors(null)).toEqual({ fields: {}, form: undefined });
  });
});
