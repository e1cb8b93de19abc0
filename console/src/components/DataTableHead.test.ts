import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ACTIONS_COLUMN, DataTableHead } from './DataTableHead';

describe('DataTableHead', () => {
  it('names every column for screen readers: plain, numeric, hidden, sortable with its order', () => {
    const html = renderToStaticMarkup(
      createElement(
        'table',
        null,
        createElement(DataTableHead, {
          columns: [
            { label: 'Name' },
            { label: 'Rows', numeric: true },
            { label: 'score', type: 'integer', sort: { direction: 'desc', onSort: () => undefined } },
            { label: 'title', type: 'text', sort: { direction: null, onSort: () => undefined } },
            { ...ACTIONS_COLUMN, className: 'row-actions' },
          ],
        }),
      ),
    );
    expect(html).toBe(
      '<table><thead><tr>' +
        '<th scope="col">Name</th>' +
        '<th scope="col" class="numeric">Rows</th>' +
        '<th scope="col" aria-sort="descending"><button type="button" class="sort-button" title="Order by score">score<span class="sort-mark" aria-hidden="true">▼</span></button><span class="column-type">integer</span></th>' +
        '<th scope="col" aria-sort="none"><button type="button" class="sort-button" title="Order by title">title<span class="sort-mark" aria-hidden="true"></span></button><span class="column-type">text</span></th>' +
        '<th scope="col" class="row-actions"><span class="visually-hidden">Actions</span></th>' +
        '</tr></thead></table>',
    );
  });
});
