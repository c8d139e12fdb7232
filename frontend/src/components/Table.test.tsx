import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Table } from './Table';

describe('Table', () => {
  it('scrolls sideways in its own named region, which the keyboard can reach', async () => {
    render(
      <Table caption="Assigned tokens" columns={['Token ID', 'Patient']} actions>
        <tr>
          <td>ABC</td>
          <td>Maria Lopez</td>
          <td />
        </tr>
      </Table>,
    );
    const region = screen.getByRole('region', { name: 'Assigned tokens' });
    expect(region).toHaveClass('table-wrap');
    expect(region).toContainElement(screen.getByRole('table', { name: 'Assigned tokens' }));
    await userEvent.tab();
    expect(region).toHaveFocus();
    expect(screen.getByRole('columnheader', { name: 'Actions' })).toBeInTheDocument();
  });

  it('names a region without a caption generically (not after its columns, which would clash with form labels)', () => {
    render(
      <Table columns={['User', 'Role']}>
        <tr>
          <td>Ada</td>
          <td>admin</td>
        </tr>
      </Table>,
    );
    expect(screen.getByRole('region', { name: 'Scrollable table' })).toBeInTheDocument();
  });
});
