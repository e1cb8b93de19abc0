import { createElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { ListState, type ListQuery, type ListStateProps } from './ListState';

function query<T>(state: Partial<ListQuery<T>>): ListQuery<T> {
  return { data: undefined, error: null, isPending: false, isError: false, refetch: () => undefined, ...state };
}

// The error state words a failure through errors.ts, which names the API's address: no browser here to read it from.
vi.mock('../apiUrl', () => ({ API_URL: 'http://api.test' }));

const render = <T,>(props: ListStateProps<T>) => renderToStaticMarkup(createElement(ListState<T>, props));
const list = (data: string[]): ReactNode => createElement('ul', null, data.join(','));
const failed = new Error('boom');

describe('ListState', () => {
  const common = { pendingLabel: 'Loading things…', isEmpty: (data: string[]) => data.length === 0, empty: 'nothing yet' };

  it('shows the spinner, then the error with its retry, the empty state or the list', () => {
    expect(render({ ...common, query: query<string[]>({ isPending: true }), children: list })).toContain('role="status"');
    expect(render({ ...common, query: query<string[]>({ isPending: true }), children: list })).toContain('Loading things…');
    const error = render({ ...common, query: query<string[]>({ isError: true, error: failed }), children: list });
    expect(error).toContain('role="alert"');
    expect(error).toContain('Try again');
    expect(render({ ...common, query: query({ data: [] }), children: list })).toBe('nothing yet');
    expect(render({ ...common, query: query({ data: ['a', 'b'] }), children: list })).toBe('<ul>a,b</ul>');
  });

  it('offers no retry where asking again cannot help, and lets a screen explain an error itself', () => {
    expect(render({ ...common, retry: false, query: query<string[]>({ isError: true, error: failed }), children: list })).not.toContain('Try again');
    expect(render({ ...common, explainError: () => 'no such thing', query: query<string[]>({ isError: true, error: failed }), children: list })).toBe('no such thing');
    expect(render({ ...common, explainError: () => undefined, query: query<string[]>({ isError: true, error: failed }), children: list })).toContain('role="alert"');
  });

  it('replaces data with a failed refresh, unless told to keep it', () => {
    const refreshFailed = query({ data: ['a'], isError: true, error: failed });
    expect(render({ ...common, query: refreshFailed, children: list })).toContain('role="alert"');
    expect(render({ ...common, errorPlacement: 'keep-data', query: refreshFailed, children: list })).toBe('<ul>a</ul>');
    expect(render({ ...common, errorPlacement: 'keep-data', query: query<string[]>({ isError: true, error: failed }), children: list })).toContain('role="alert"');
  });

  it('above: the error over content that stays, the empty state for the content to place', () => {
    const grid = (data: string[] | undefined, empty: ReactNode) => createElement('table', null, (data ?? []).join(','), empty);
    const above = { ...common, errorPlacement: 'above' as const, errorClassName: 'grid-error', children: grid };
    const error = render({ ...above, query: query<string[]>({ isError: true, error: failed }) });
    expect(error).toMatch(/^<div class="grid-error"><div class="state state-error" role="alert">.*<\/div><\/div><table><\/table>$/);
    expect(render({ ...above, query: query({ data: [] }) })).toBe('<table>nothing yet</table>');
    expect(render({ ...above, query: query({ data: ['a'] }) })).toBe('<table>a</table>');
    expect(render({ ...above, query: query<string[]>({ isPending: true }) })).toContain('Loading things…');
  });
});
