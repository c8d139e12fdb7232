import { act, render, screen } from '@testing-library/react';
import { NOTIFICATION_MS, NotificationProvider, useNotify } from './Notifications';
import { Banner } from './Banner';

function Trigger() {
  const notify = useNotify();
  return (
    <button type="button" onClick={() => notify('success', 'Saved')}>
      go
    </button>
  );
}

describe('notifications and banners', () => {
  it('dismisses notifications after 5 seconds', () => {
    vi.useFakeTimers();
    try {
      render(
        <NotificationProvider>
          <Trigger />
        </NotificationProvider>,
      );
      act(() => screen.getByRole('button', { name: 'go' }).click());
      expect(screen.getByText('Saved')).toBeInTheDocument();
      expect(NOTIFICATION_MS).toBe(5000);
      act(() => vi.advanceTimersByTime(4999));
      expect(screen.getByText('Saved')).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(1));
      expect(screen.queryByText('Saved')).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('honours a custom duration', () => {
    vi.useFakeTimers();
    try {
      function Custom() {
        const notify = useNotify();
        return (
          <button type="button" onClick={() => notify('error', 'Oops', 7000)}>
            custom
          </button>
        );
      }
      render(
        <NotificationProvider>
          <Custom />
        </NotificationProvider>,
      );
      act(() => screen.getByRole('button', { name: 'custom' }).click());
      act(() => vi.advanceTimersByTime(6999));
      expect(screen.getByText('Oops')).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(1));
      expect(screen.queryByText('Oops')).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
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
