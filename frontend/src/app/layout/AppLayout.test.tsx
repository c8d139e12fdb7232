import { screen } from '@testing-library/react';
import { ADMIN, mockApi, renderApp, signIn } from '../../test/utils';

const phone = (matches: boolean) =>
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: matches && query === '(max-width: 640px)',
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));

describe('the sidebar on a phone', () => {
  beforeEach(() => {
    signIn(ADMIN);
    mockApi({});
  });
  afterEach(() => vi.unstubAllGlobals());

  const shell = async () => (await screen.findByRole('navigation', { name: 'Main navigation' })).closest('.shell');

  it('starts closed on a phone, open on a wider screen', async () => {
    phone(true);
    const { unmount } = renderApp('/users');
    expect(await shell()).toHaveClass('shell-collapsed');
    unmount();
    phone(false);
    renderApp('/users');
    expect(await shell()).not.toHaveClass('shell-collapsed');
  });

  it('remembers what the user chose, on a phone too', async () => {
    phone(true);
    window.localStorage.setItem('sidebarCollapsed', 'false');
    renderApp('/users');
    expect(await shell()).not.toHaveClass('shell-collapsed');
  });
});
