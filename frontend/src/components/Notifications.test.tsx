import { act, render, screen } from '@testing-library/react';
import { NOTIFICATION_MS, NotificationProvider, useNotify } from './Notifications';
import { Banner } from './Banner';

/** Notifies once through the provider, under fake timers; the returned function moves the clock. */
function notifyWithFakeTimers(kind: 'success' | 'error', message: string, durationMs?: number) {
  vi.useFakeTimers();
  function Trigger() {
    const notify = useNotify();
    return (
      <button type="button" onClick={() => notify(kind, message, durationMs)}>
        go
      </button>
    );
  }
  render(
    <NotificationProvider>
      <Trigger />
    </NotificationProvider>,
  );
  act(() => screen.getByRole('button', { name: 'go' }).click());
  return (ms: number) => act(() => vi.advanceTimersByTime(ms));
}

describe('notifications and banners', () => {
  afterEach(() => vi.useRealTimers());

  it('dismisses notifications after 5 seconds', () => {
    const advance = notifyWithFakeTimers('success', 'Saved');
    expect(screen.getByText('Saved')).toBeInTheDocument();
    expect(NOTIFICATION_MS).toBe(5000);
    advance(4999);
    expect(screen.getByText('Saved')).toBeInTheDocument();
    advance(1);
    expect(screen.queryByText('Saved')).not.toBeInTheDocument();
  });

  it('honours a custom duration', () => {
    const advance = notifyWithFakeTimers('error', 'Oops', 7000);
    advance(6999);
    expect(screen.getByText('Oops')).toBeInTheDocument();
    advance(1);
    expect(screen.queryByText('Oops')).not.toBeInTheDocument();
  });

  it('keeps banners until closed', () => {
    const onClose = vi.fn();
    render(
      <Banner kind="error" onClose={onClose}>
        Broken
      </Banner>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Broken');
    screen.getByRole('button', { name: 'Dismiss message' }).click();
    expect(onClose).toHaveBeenCalled();
  });
});
