import { createPasskey, PasskeyAddressError, passkeyAddressProblem } from './webauthn';

describe('passkeyAddressProblem', () => {
  it('says what to change at an IP address', () => {
    expect(passkeyAddressProblem({ hostname: '127.0.0.1', port: '8000', protocol: 'http:' })).toBe(
      "Passkeys do not work at an IP address such as 127.0.0.1. Open the portal at http://localhost:8000 instead, or ask IT to set BFF_PUBLIC_URL to the portal's name, and try again.",
    );
    expect(passkeyAddressProblem({ hostname: '[::1]', port: '', protocol: 'http:' })).toContain('http://localhost instead');
    expect(passkeyAddressProblem({ hostname: '10.1.2.3', port: '443', protocol: 'https:' })).toContain('Open the portal at its name instead');
  });

  it('says nothing at a name', () => {
    expect(passkeyAddressProblem({ hostname: 'localhost', port: '8000', protocol: 'http:' })).toBeNull();
    expect(passkeyAddressProblem({ hostname: 'records.example.org', port: '', protocol: 'https:' })).toBeNull();
  });
});

describe('a relying party the page is not at', () => {
  it('names the address passkeys work at', () => {
    expect(passkeyAddressProblem({ hostname: 'records.example.org', port: '', protocol: 'https:' }, 'portal.example.org')).toBe(
      'Passkeys for this portal work at portal.example.org, not at records.example.org. Open the portal at portal.example.org, or ask IT to set BFF_PUBLIC_URL to the address people use, and try again.',
    );
  });

  it('accepts the host itself and hosts under it', () => {
    expect(passkeyAddressProblem({ hostname: 'localhost', port: '8000', protocol: 'http:' }, 'localhost')).toBeNull();
    expect(passkeyAddressProblem({ hostname: 'a.example.org', port: '', protocol: 'https:' }, 'example.org')).toBeNull();
  });

  it('refuses before asking the browser: createPasskey throws PasskeyAddressError at an IP address', async () => {
    const create = vi.fn();
    vi.stubGlobal('navigator', { ...navigator, credentials: { create } });
    window.history.pushState({}, '', '/security');
    // jsdom's page is at localhost: a server whose relying party is elsewhere cannot work here.
    await expect(createPasskey({ rp: { id: 'portal.example.org', name: 'x' } })).rejects.toBeInstanceOf(PasskeyAddressError);
    expect(create).not.toHaveBeenCalled();
    vi.unstubAllGlobals();
  });
});
