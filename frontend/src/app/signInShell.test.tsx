/**
 * index.html's static sign-in form (issue 52): src/shell.js shows it before the first paint only
 * to a visitor with no session on a page that ends at sign-in; it is the form LoginPage first
 * renders; and LoginPage, taking it over, keeps what was typed into it and the password's focus.
 */
import { screen, within } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { mockApi, never, renderApp } from '../test/utils';

const read = (path: string) => readFileSync(resolve(process.cwd(), path), 'utf8');
const INDEX = read('index.html');
const SHELL_SCRIPT = read('src/shell.js');

/** index.html's static form, as the browser parses it. */
function staticForm(): HTMLElement {
  const page = new DOMParser().parseFromString(INDEX, 'text/html');
  const form = page.querySelector<HTMLElement>('#root > .login-shell');
  if (!form) throw new Error('index.html has no .login-shell in #root');
  return form;
}

/** Whether shell.js shows the static form at `path` (with `token` stored, if any). */
function shown(path: string, token: string | null = null): boolean {
  window.history.replaceState(null, '', path);
  if (token !== null) window.localStorage.setItem('token', token);
  document.documentElement.classList.remove('signed-out');
  new Function(SHELL_SCRIPT)();
  const verdict = document.documentElement.classList.contains('signed-out');
  document.documentElement.classList.remove('signed-out');
  window.localStorage.clear();
  window.history.replaceState(null, '', '/');
  return verdict;
}

/** A node as markup that does not depend on attribute order or on white space between tags. */
function shape(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent?.trim() ? JSON.stringify(node.textContent) : '';
  if (!(node instanceof Element)) return '';
  const attributes = Array.from(node.attributes)
    .map((attribute) => `${attribute.name}="${attribute.value}"`)
    .sort()
    .join(' ');
  return `<${node.localName} ${attributes}>${Array.from(node.childNodes).map(shape).join('')}</${node.localName}>`;
}

describe('the static sign-in form', () => {
  it.each(['/', '/login', '/dashboard', '/containers/ward%20a/folders/p-1?view=scan.pdf', '/admin/containers'])(
    'is shown at %s to a visitor with no session',
    (path) => expect(shown(path)).toBe(true),
  );

  it.each([
    ['a session is stored', '/login', 'a.b.c'],
    ['a public SmartToken page', '/patients/verify/ABC', null],
    ['the emergency page', '/emergency', null],
    ['the expired-session notice', '/login?session=expired', null],
    ["single sign-on's return", '/login#sso=abc', null],
  ])('is not shown for %s', (_why, path, token) => expect(shown(path, token)).toBe(false));

  it('is the form LoginPage first renders, its button disabled until the app takes over', async () => {
    mockApi({ 'GET /api/auth/sso': never });
    renderApp('/login');
    await screen.findByRole('button', { name: 'Sign in' });
    const rendered = document.querySelector('.login-page');
    const form = staticForm();
    expect(form.querySelector('button[type="submit"]')?.hasAttribute('disabled')).toBe(true);
    expect(form.querySelector('form')?.getAttribute('method')).toBe('post');
    // Besides its class, it differs only in the attributes that wait for the app.
    form.classList.remove('login-shell');
    form.querySelector('button')?.removeAttribute('disabled');
    form.querySelector('input[autofocus]')?.removeAttribute('autofocus');
    expect(rendered).not.toBeNull();
    expect(shape(form)).toBe(shape(rendered!));
  });

  it('is taken over by the app with what was typed into it, the password keeping the focus', async () => {
    const form = staticForm();
    document.body.append(form);
    try {
      form.querySelector<HTMLInputElement>('input[name="username"]')!.value = 'nora';
      const password = form.querySelector<HTMLInputElement>('input[name="password"]')!;
      password.value = 'secret-pa';
      password.focus();
      mockApi({ 'GET /api/auth/sso': never });
      const { container } = renderApp('/login');
      await within(container).findByRole('button', { name: 'Sign in' });
      // (Both forms are in this test's document, with the same ids: the app's found in its own.)
      expect(container.querySelector('input[name="username"]')).toHaveValue('nora');
      expect(container.querySelector('input[name="password"]')).toHaveValue('secret-pa');
      expect(container.querySelector('input[name="password"]')).toHaveFocus();
    } finally {
      form.remove();
    }
  });

  it('is not there for the app to take over otherwise: empty fields, the focus on the username', async () => {
    mockApi({ 'GET /api/auth/sso': never });
    renderApp('/login');
    expect(await screen.findByLabelText('Username')).toHaveValue('');
    expect(screen.getByLabelText('Username')).toHaveFocus();
  });
});
