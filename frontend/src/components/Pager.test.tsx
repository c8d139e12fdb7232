import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Pager } from './Pager';

const labels = () => Array.from(screen.getByRole('navigation', { name: 'Pages' }).querySelectorAll('li'), (li) => li.textContent);

describe('Pager', () => {
  it('is absent for a single page', () => {
    const { container } = render(<Pager label="Pages" page={1} pages={1} onPage={vi.fn()} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('shows 1 to 3, an ellipsis and the last page, with Previous and Next', async () => {
    const onPage = vi.fn();
    render(<Pager label="Pages" page={1} pages={9} onPage={onPage} />);
    expect(labels()).toEqual(['1', '2', '3', '…', '9']);
    expect(screen.getByRole('button', { name: 'Page 1' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(onPage).toHaveBeenLastCalledWith(2);
    await userEvent.click(screen.getByRole('button', { name: 'Page 9' }));
    expect(onPage).toHaveBeenLastCalledWith(9);
  });

  it('disables Next on the last page', () => {
    render(<Pager label="Pages" page={3} pages={3} onPage={vi.fn()} />);
    expect(labels()).toEqual(['1', '2', '3']);
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });
});
