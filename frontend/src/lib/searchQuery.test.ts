import { hasFilters, parseSearch, searchUrl } from './searchQuery';

describe('search addresses', () => {
  it('reads every filter from the address, trimmed', () => {
    const query = parseSearch(
      new URLSearchParams('q=+penicillin+&container=ward%20a&folder=p-1&type=pdf&modifiedFrom=2026-01-01&modifiedTo=2026-02-01'),
    );
    expect(query).toEqual({
      q: 'penicillin',
      container: 'ward a',
      folder: 'p-1',
      type: 'pdf',
      modifiedFrom: '2026-01-01',
      modifiedTo: '2026-02-01',
    });
    expect(hasFilters(query)).toBe(true);
  });

  it('leaves out dates a date field could not show', () => {
    const query = parseSearch(new URLSearchParams('q=x&modifiedFrom=yesterday&modifiedTo=2026-1-1'));
    expect(query.modifiedFrom).toBe('');
    expect(query.modifiedTo).toBe('');
    expect(hasFilters(query)).toBe(false);
  });

  it('leaves out a file type the server does not know (the select could not show it)', () => {
    const query = parseSearch(new URLSearchParams('q=x&type=foo'));
    expect(query.type).toBe('');
    expect(hasFilters(query)).toBe(false);
    expect(parseSearch(new URLSearchParams('q=x&type=word')).type).toBe('word');
  });

  it('writes only the fields given, encoded, in one order', () => {
    expect(searchUrl({ folder: 'p 1', q: '"chest pain" -fracture', container: 'ward&a' })).toBe(
      '/search?q=%22chest+pain%22+-fracture&container=ward%26a&folder=p+1',
    );
    expect(searchUrl({ q: '  ' })).toBe('/search');
  });

  it('round-trips', () => {
    const url = searchUrl({ q: 'pneu*', type: 'image', modifiedTo: '2026-03-04' });
    expect(parseSearch(new URLSearchParams(url.split('?')[1]))).toMatchObject({ q: 'pneu*', type: 'image', modifiedTo: '2026-03-04' });
  });
});
