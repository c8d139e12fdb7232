import type { MockInstance } from 'vitest';
import { screen } from '@testing-library/react';
import { pageLocation } from '../../../lib/location';
import { REDIRECT_GUARD_MS } from '../../../lib/smartTokens';
import { renderApp } from '../../../test/utils';

const ID = '0123456789ABCDEF0123456789ABCDEF';
const SIG = '01234567-89ABCDEF-00000000-FFFFFFFF';

const NEXT_STEP = 'Scan the token again. If it still does not open, call the phone number on the token.';

describe('/patients/verify/:id', () => {
  let assign: MockInstance<(url: string) => void>;
  beforeEach(() => {
    window.sessionStorage.clear();
    assign = vi.spyOn(pageLocation, 'assign').mockImplementation(() => undefined);
  });

  it.each([`/patients/verify/${ID}`, `/patients/verify/${ID}?s=`, `/patients/verify?s=${SIG}`])(
    'says the id or signature is missing: %s',
    async (path) => {
      renderApp(path);
      expect(await screen.findByRole('heading', { name: 'Invalid SmartToken URL - missing ID or signature' })).toBeInTheDocument();
      expect(screen.getByText(NEXT_STEP)).toBeInTheDocument();
      expect(assign).not.toHaveBeenCalled();
    },
  );

  it.each(['ZZZ', 'abcdef12', `${SIG}%20`, '0123%3Cb%3E'])('rejects the signature %s', async (sig) => {
    renderApp(`/patients/verify/${ID}?s=${sig}`);
    expect(await screen.findByRole('heading', { name: 'Invalid signature format' })).toBeInTheDocument();
    expect(screen.getByText(NEXT_STEP)).toBeInTheDocument();
    expect(assign).not.toHaveBeenCalled();
  });

  it.each([
    [ID, 'ABC-123'],
    [ID.toLowerCase(), SIG],
    [ID.slice(0, 31), SIG],
  ])('shows the neutral page, without redirecting, for %s?s=%s (not the server format)', async (id, sig) => {
    renderApp(`/patients/verify/${id}?s=${sig}`);
    expect(await screen.findByRole('heading', { name: 'This emergency access link is not valid or has expired.' })).toBeInTheDocument();
    expect(screen.getByText(NEXT_STEP)).toBeInTheDocument();
    expect(assign).not.toHaveBeenCalled();
  });

  it('shows the first 8 characters and redirects a well-formed link to the server, once', async () => {
    const path = `/patients/verify/${ID}?s=${SIG}`;
    const first = renderApp(path);
    expect(await screen.findByRole('heading', { name: 'Verifying emergency access token' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Token 01234567…');
    expect(screen.queryByText(ID)).not.toBeInTheDocument();
    expect(assign).toHaveBeenCalledTimes(1);
    expect(assign).toHaveBeenCalledWith(path);
    first.unmount();

    // Served the page again for the same link moments later: no second redirect (no loop).
    renderApp(path);
    expect(await screen.findByRole('heading', { name: 'This emergency access link is not valid or has expired.' })).toBeInTheDocument();
    expect(assign).toHaveBeenCalledTimes(1);
  });

  it('redirects again once the guard window has passed', async () => {
    const path = `/patients/verify/${ID}?s=${SIG}`;
    window.sessionStorage.setItem(`smart-token-redirect:${path}`, String(Date.now() - REDIRECT_GUARD_MS - 1));
    renderApp(path);
    expect(await screen.findByRole('heading', { name: 'Verifying emergency access token' })).toBeInTheDocument();
    expect(assign).toHaveBeenCalledWith(path);
  });
});
