import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConfirmDialog } from './Dialog';

describe('ConfirmDialog', () => {
  it('is labelled, traps focus and closes with Escape; restores focus', async () => {
    const onCancel = vi.fn();
    const opener = document.createElement('button');
    document.body.appendChild(opener);
    opener.focus();
    const { unmount } = render(
      <ConfirmDialog title="Delete user" confirmLabel="Delete" onConfirm={vi.fn()} onCancel={onCancel}>
        <p>Sure?</p>
      </ConfirmDialog>,
    );
    const dialog = screen.getByRole('alertdialog', { name: 'Delete user' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.tab();
    expect(screen.getByRole('button', { name: 'Delete' })).toHaveFocus();
    await userEvent.tab();
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.tab({ shift: true });
    expect(screen.getByRole('button', { name: 'Delete' })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(onCancel).toHaveBeenCalledTimes(1);
    unmount();
    expect(opener).toHaveFocus();
    opener.remove();
  });

  it('cannot be closed while busy', async () => {
    const onCancel = vi.fn();
    render(
      <ConfirmDialog title="Delete" confirmLabel="Delete" busyLabel="Deleting…" busy onConfirm={vi.fn()} onCancel={onCancel}>
        x
      </ConfirmDialog>,
    );
    await userEvent.keyboard('{Escape}');
    expect(onCancel).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Deleting…' })).toBeDisabled();
  });
});
