/**
 * Assertions that many screens' tests share: the loading, failure and empty states every list
 * screen shows (QueryBoundary), and a form whose call fails with and without a server message.
 */
import { screen, waitFor } from '@testing-library/react';
import { expect } from 'vitest';
import { mockApi, never, renderApp, type ApiMock, type FakeResponse, type Handler } from './utils';

/** The other calls a screen makes, answered as given. */
export type Routes = Record<string, Handler | FakeResponse>;

/** While `endpoint` has not answered, the screen at `path` shows `text`. */
export async function expectLoading(path: string, endpoint: string, text: string, routes: Routes = {}) {
  mockApi({ ...routes, [endpoint]: never });
  renderApp(path);
  expect(await screen.findByText(text)).toBeInTheDocument();
}

/** When `endpoint` answers `body`, the screen at `path` shows its empty `text`. */
export async function expectEmpty(path: string, endpoint: string, body: unknown, text: string, routes: Routes = {}) {
  mockApi({ ...routes, [endpoint]: { body } });
  renderApp(path);
  expect(await screen.findByText(text)).toBeInTheDocument();
}

interface FailureCase {
  /** The failure with the server's message, e.g. { status: 503, message: 'Down.' }. */
  failure: { status: number; message: string };
  /** The screen's text when the server sent no message. */
  fallback: string;
  /** The failure without a message (default: a bare 500). */
  bare?: FakeResponse;
  routes?: Routes;
}

/** When `endpoint` fails, the screen at `path` shows the server's message, or without one its fallback. */
export async function expectServerMessageOrFallback(path: string, endpoint: string, c: FailureCase) {
  const api = mockApi({ ...c.routes, [endpoint]: { status: c.failure.status, body: { message: c.failure.message } } });
  const first = renderApp(path);
  expect(await screen.findByRole('alert')).toHaveTextContent(c.failure.message);
  first.unmount();
  api.set(endpoint, c.bare ?? { status: 500 });
  renderApp(path);
  expect(await screen.findByRole('alert')).toHaveTextContent(c.fallback);
}

/**
 * A form whose call (`endpoint`, already answering with `message`) fails: `submit` shows the
 * server's message; once the call fails without one, submitting again shows the fallback.
 */
export async function expectSubmitFailures(api: ApiMock, endpoint: string, submit: () => Promise<unknown>, message: string, fallback: string) {
  await submit();
  expect(await screen.findByRole('alert')).toHaveTextContent(message);
  api.set(endpoint, { status: 500 });
  await submit();
  await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(fallback));
}
