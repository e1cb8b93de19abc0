import { describe, expect, it } from 'vitest';
import { filterParameters, idParameters, listItemText, listText, orderParameters, searchText } from './parameters';

describe('in lists', () => {
  it('writes plain values as they are', () => {
    expect(listText(['a', 'b', 3, true])).toBe('a,b,3,true');
  });

  it('quotes a value holding a comma or a double quote, doubling the quote', () => {
    expect(listItemText('a,b')).toBe('"a,b"');
    expect(listItemText('say "hi"')).toBe('"say ""hi"""');
    expect(listItemText('"')).toBe('""""');
    expect(listText(['x', 'a,b', 'say "hi"'])).toBe('x,"a,b","say ""hi"""');
  });

  it('leaves other punctuation to the URL encoding', () => {
    expect(listItemText('a b&c=d')).toBe('a b&c=d');
    expect(searchText(idParameters(['a&b', 'c,d']))).toBe('?id%5Bin%5D=a%26b%2C%22c%2Cd%22');
  });

  it('refuses an empty list and one longer than the server takes', () => {
    expect(() => listText([])).toThrow(RangeError);
    expect(() => listText(Array.from({ length: 101 }, (_, i) => i))).toThrow(RangeError);
    expect(listText(Array.from({ length: 100 }, (_, i) => i)).split(',')).toHaveLength(100);
  });
});

describe('filter parameters', () => {
  it('writes every condition with its operator, so reserved names stay filters', () => {
    expect(filterParameters({ limit: { eq: '3' }, title: { ilike: 'a*' }, done: { is: 'null' } })).toEqual([
      ['limit[eq]', '3'],
      ['title[ilike]', 'a*'],
      ['done[is]', 'null'],
    ]);
  });

  it('quotes list items and reads plain values as equality', () => {
    expect(filterParameters({ tag: { in: ['a,b', 'c'] }, score: 4, gone: null })).toEqual([
      ['tag[in]', '"a,b",c'],
      ['score[eq]', '4'],
      ['gone[is]', 'null'],
    ]);
  });

  it('adds the order when there is one', () => {
    expect(orderParameters({ column: 'createdAt', direction: 'desc' })).toEqual([['order', 'createdAt.desc']]);
    expect(orderParameters(null)).toEqual([]);
    expect(searchText([])).toBe('');
  });
});
