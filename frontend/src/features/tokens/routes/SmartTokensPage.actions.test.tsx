/** /admin/smart-tokens: remote disconnect, reactivate and delete. */
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, renderApp, signIn } from '../../../test/utils';
import { PAGE, UNCLAIMED, ASSIGNED, ACTIVE, REVOKED, tokensApi, openAssigned, loadScreen } from './smartTokensTestKit';

beforeAll(loadScreen);

describe('/admin/smart-tokens', () => {
  beforeEach(() => signIn(ADMIN));

  describe('remote disconnect', () => {
    it('requires a reason from the list, then disconnects', async () => {
      const api = tokensApi({
        'POST /patients/admin/revoke': { body: { message: 'Token remotely disconnected successfully', token: REVOKED } },
      });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Remote disconnect token CCCCCCCC...44444444' }));
      const dialog = screen.getByRole('alertdialog', { name: 'Remote Disconnect Token' });
      const options = within(within(dialog).getByLabelText('Reason *')).getAllByRole('option').map((o) => o.textContent);
      expect(options.join(' | ')).toBe(
        'Select a reason | Token lost by patient | Token damaged or malfunctioning | Patient reported token stolen | ' +
          'Security breach suspected | Patient no longer needs access | Administrative revocation | Other',
      );
      await userEvent.click(within(dialog).getByRole('button', { name: 'Disconnect Token' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please provide a reason for revocation');
      await userEvent.selectOptions(within(dialog).getByLabelText('Reason *'), 'Security breach suspected');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Disconnect Token' }));
      expect(await screen.findByText('Token remotely disconnected successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        path: '/patients/admin/revoke',
        body: { tokenId: ACTIVE.smartTokenId, reason: 'Security breach suspected' },
      });
    });

    it('shows the fallback when disconnecting fails', async () => {
      tokensApi({ 'POST /patients/admin/revoke': { status: 500 } });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Remote disconnect token CCCCCCCC...44444444' }));
      await userEvent.selectOptions(screen.getByLabelText('Reason *'), 'Other');
      await userEvent.click(screen.getByRole('button', { name: 'Disconnect Token' }));
      expect(await within(screen.getByRole('alertdialog')).findByRole('alert')).toHaveTextContent('Failed to revoke token');
    });
  });

  describe('reactivate', () => {
    it('reactivates a revoked token', async () => {
      const api = tokensApi({ 'POST /patients/admin/reactivate': { body: { message: 'Token reactivated successfully', token: ACTIVE } } });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Reactivate token EEEEEEEE...66666666' }));
      expect(await screen.findByText('Token reactivated successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/patients/admin/reactivate', body: { tokenId: REVOKED.smartTokenId } });
    });

    it.each([
      [409, { message: "This token's patient folder has moved to another token." }, "This token's patient folder has moved to another token."],
      [500, undefined, 'Failed to reactivate token'],
    ])('reports a %s failure', async (status, body, message) => {
      tokensApi({ 'POST /patients/admin/reactivate': { status, body } });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Reactivate token EEEEEEEE...66666666' }));
      expect(await screen.findByText(message)).toBeInTheDocument();
    });

    it('offers no Reactivate for a token whose folder moved to another token', async () => {
      mockApi({
        [UNCLAIMED]: { body: { tokens: [] } },
        [ASSIGNED]: { body: { tokens: [{ ...REVOKED, containerName: null, folderName: null }] } },
      });
      renderApp(PAGE);
      await userEvent.click(await screen.findByRole('tab', { name: 'Assigned Tokens (1)' }));
      expect(screen.queryByRole('button', { name: /Reactivate/ })).not.toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Delete token EEEEEEEE...66666666' })).toBeInTheDocument();
    });
  });

  describe('delete', () => {
    async function openDelete() {
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Delete token EEEEEEEE...66666666' }));
      return screen.getByRole('alertdialog', { name: 'Permanently Delete Token' });
    }

    it('requires a reason and the word DELETE, then deletes', async () => {
      const api = tokensApi({ 'DELETE /patients/admin/delete/EEEEEEEE55555555FFFFFFFF66666666': { body: { message: 'Token permanently deleted successfully' } } });
      renderApp(PAGE);
      const dialog = await openDelete();
      const options = within(within(dialog).getByLabelText('Reason *')).getAllByRole('option').map((o) => o.textContent);
      expect(options.slice(1).join(' | ')).toBe(
        'Physical token permanently lost | Token stolen and cannot be recovered | Token physically damaged beyond repair | ' +
          'Need to assign patient folder to new token | Patient deceased - cleanup required | Administrative cleanup | ' +
          'Other permanent removal',
      );
      const confirm = within(dialog).getByRole('button', { name: 'Delete Permanently' });
      await userEvent.click(confirm);
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please provide a reason for deletion');
      await userEvent.selectOptions(within(dialog).getByLabelText('Reason *'), 'Administrative cleanup');
      await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'delete');
      await userEvent.click(confirm);
      expect(within(dialog).getByRole('alert')).toHaveTextContent("Please type 'DELETE' to confirm permanent deletion");
      expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
      await userEvent.clear(within(dialog).getByLabelText('Type DELETE to confirm *'));
      await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'DELETE');
      await userEvent.click(confirm);
      expect(await screen.findByText('Token permanently deleted successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'DELETE')).toMatchObject({
        path: '/patients/admin/delete/EEEEEEEE55555555FFFFFFFF66666666',
        body: { reason: 'Administrative cleanup' },
      });
    });

    it('shows the fallback when deleting fails', async () => {
      tokensApi({ 'DELETE /patients/admin/delete/EEEEEEEE55555555FFFFFFFF66666666': { status: 500 } });
      renderApp(PAGE);
      const dialog = await openDelete();
      await userEvent.selectOptions(within(dialog).getByLabelText('Reason *'), 'Other permanent removal');
      await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'DELETE');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Delete Permanently' }));
      expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to delete token');
    });
  });
});
