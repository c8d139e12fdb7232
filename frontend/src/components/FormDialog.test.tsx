import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FormDialog } from './FormDialog';

function renderDialog(props: Partial<Parameters<typeof FormDialog>[0]> = {}) {
  const onSubmit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
  const onClose = vi.fn();
  render(
    <FormDialog
      title="Do it"
      intro={<p>About to do it.</p>}
      onSubmit={onSubmit}
      onClose={onClose}
      submitLabel="Go"
      busyLabel="Going…"
      busy={false}
      error={null}
      {...props}
    >
      <label htmlFor="what">What</label>
      <input id="what" data-autofocus />
    </FormDialog>,
  );
  return { onSubmit, onClose };
}

describe('FormDialog', () => {
  it('submits its form from the action button and closes with Cancel', async () => {
    const { onSubmit, onClose } = renderDialog();
    expect(screen.getByRole('dialog', { name: 'Do it' })).toHaveTextContent('About to do it.');
    expect(screen.getByLabelText('What')).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Go' }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('while busy: the busy label, both buttons disabled, Escape ignored', () => {
    const { onClose } = renderDialog({ busy: true });
    expect(screen.getByRole('button', { name: 'Going…' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled();
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
  });

  it('shows the error as an alert; a destructive one is an alert dialog with a danger button', () => {
    renderDialog({ error: 'Nope', danger: true });
    expect(screen.getByRole('alert')).toHaveTextContent('Nope');
    expect(screen.getByRole('alertdialog', { name: 'Do it' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Go' })).toHaveClass('btn-danger');
  });
});
