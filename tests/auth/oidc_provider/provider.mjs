// A real, certified OpenID Provider (npm oidc-provider) for the single sign-on tests.
//
//   node provider.mjs CONFIG.json
//
// CONFIG: {port, client: {client_id, client_secret, redirect_uris, post_logout_redirect_uris,
//          backchannel_logout_uri?}, accounts: {id: {password, claims}}}
// It prints "listening <issuer>" once it serves. Its own login form is at /interaction/:uid
// (username, password and an "mfa" checkbox: ticked, the ID token's amr says otp and its acr
// is "mfa"). Test controls (this is a test provider, on 127.0.0.1 only):
//   POST /test/accounts/:id  {claims}           replace an account's claims (e.g. its groups)
//   POST /test/configure     {rotate?, client?}  a new signing key and/or client settings
//                            (e.g. redirect_uris, backchannel_logout_uri), served at once
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${config.port}`;
const accounts = config.accounts;
let client = { ...config.client };
let key = newKey();

function newKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' };
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function makeProvider() {
  const provider = new Provider(issuer, {
    clients: [
      {
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        backchannel_logout_session_required: true,
        ...client,
      },
    ],
    jwks: { keys: [key] },
    pkce: { required: () => true },
    // Claims in the ID token itself, as Entra ID and Keycloak send groups and names.
    conformIdTokenClaims: false,
    acrValues: ['pwd', 'mfa'],
    claims: {
      openid: ['sub', 'amr', 'acr', 'auth_time'],
      profile: ['name', 'preferred_username'],
      email: ['email'],
      groups: ['groups'],
    },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'groups'],
    features: {
      devInteractions: { enabled: false },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-provider-cookie-key'] },
    // Its back-channel logout calls go to the portal on 127.0.0.1: a test provider only, so
    // without the protection against special-use addresses.
    fetch(url, options) {
      const { dispatcher, ...rest } = options;
      return globalThis.fetch(url, rest);
    },
    async findAccount(ctx, id) {
      const account = accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account.claims }) };
    },
    async loadExistingGrant(ctx) {
      // No consent screen: the test client is granted what it asks for.
      const grantId = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) {
        const found = await ctx.oidc.provider.Grant.find(grantId);
        if (found) return found;
      }
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid profile email groups');
      grant.addOIDCClaims(['sub', 'amr', 'acr', 'auth_time', 'name', 'preferred_username', 'groups', 'email']);
      await grant.save();
      return grant;
    },
  });
  provider.on('server_error', (ctx, error) => console.error('server_error', error));
  provider.on('backchannel.error', (ctx, error, client) => console.error('backchannel.error', client.clientId, error));
  provider.on('backchannel.success', (ctx, client) => console.log('backchannel.success', client.clientId));
  return provider;
}

let provider = makeProvider();

async function body(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function loginForm(uid, message) {
  return `<!doctype html><html><head><title>Test provider sign-in</title></head><body>
<h1>Test identity provider</h1>${message ? `<p role="alert">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password"></label>
<label><input type="checkbox" name="mfa" value="1"> Multi-factor</label>
<button type="submit">Sign in to provider</button></form></body></html>`;
}

async function interaction(req, res) {
  const url = new URL(req.url, issuer);
  const match = url.pathname.match(/^\/interaction\/([^/]+)(\/login)?$/);
  if (!match) return false;
  const uid = match[1];
  if (req.method === 'GET') {
    await provider.interactionDetails(req, res);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(loginForm(uid));
    return true;
  }
  if (req.method === 'POST' && match[2]) {
    const form = new URLSearchParams(await body(req));
    const id = form.get('username') ?? '';
    const account = accounts[id];
    if (!account || account.password !== form.get('password')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(loginForm(uid, 'Wrong username or password'));
      return true;
    }
    const mfa = form.get('mfa') === '1';
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: id, amr: mfa ? ['pwd', 'otp'] : ['pwd'], acr: mfa ? 'mfa' : 'pwd' } },
      { mergeWithLastSubmission: false },
    );
    return true;
  }
  return false;
}

async function control(req, res) {
  const url = new URL(req.url, issuer);
  if (req.method !== 'POST' || !url.pathname.startsWith('/test/')) return false;
  const data = JSON.parse((await body(req)) || '{}');
  const account = url.pathname.match(/^\/test\/accounts\/([^/]+)$/);
  if (account) {
    accounts[account[1]] = { ...accounts[account[1]], claims: data.claims };
  } else if (url.pathname === '/test/configure') {
    if (data.rotate) key = newKey();
    if (data.client) client = { ...client, ...data.client };
    provider = makeProvider();
  } else {
    return false;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kid: key.kid }));
  return true;
}

const server = createServer(async (req, res) => {
  try {
    if ((await control(req, res)) || (await interaction(req, res))) return;
    provider.callback()(req, res);
  } catch (error) {
    console.error(error);
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error && error.message));
  }
});
server.listen(config.port, '127.0.0.1', () => console.log(`listening ${issuer}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
