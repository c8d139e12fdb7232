import { filterBySearch, matchesSearch } from './search';

describe('search', () => {
  it('matches case-insensitive substrings', () => {
    expect(matchesSearch('Patient-0042', 'ent-00')).toBe(true);
    expect(matchesSearch('Patient-0042', 'PATIENT')).toBe(true);
    expect(matchesSearch('Patient-0042', 'nurse')).toBe(false);
  });
  it('treats a blank query as matching everything', () => {
    expect(matchesSearch('anything', '   ')).toBe(true);
    expect(filterBySearch(['a', 'b'], '', (x) => x)).toEqual(['a', 'b']);
  });
  it('filters items by one or several texts', () => {
    const users = [
      { name: 'Ann', username: 'ann1' },
      { name: 'Bob', username: 'robert' },
    ];
    expect(filterBySearch(users, 'ROB', (u) => [u.name, u.username])).toEqual([users[1]]);
    expect(filterBySearch(['ward-1', 'ward-2'], 'd-2', (x) => x)).toEqual(['ward-2']);
  });
});
