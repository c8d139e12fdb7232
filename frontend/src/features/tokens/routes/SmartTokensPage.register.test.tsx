/** /admin/smart-tokens: registering a token. */
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectSubmitFailures } from '../../../test/expectations';
import { ADMIN, renderApp, signIn, type FakeResponse } from '../../../test/utils';
import { PAGE, tokensApi, loadScreen } from './smartTokensTestKit';

beforeAll(loadScreen);

describe('/admin/smart-tokens', () => {
  beforeEach(() => signIn(ADMIN));

  describe('register', () => {
    const URL_ = `https://records.example/patients/verify/${'A'.repeat(32)}?s=01234567-89ABCDEF-00000000-FFFFFFFF`;
    const REGISTER = 'POST /patients/admin/register';
    const registered = (smartTokenId: string, secureChipId: string): FakeResponse => ({
      status: 201,
      body: { message: 'Token registered successfully', smartTokenId, secureChipId, verificationUrl: URL_ },
    });

    /** Opens Register Device and types the chip id (a static link unless told); returns how to press Register. */
    async function openRegister(chip: string, kind: 'sun' | 'static' = 'static') {
      await userEvent.click(await screen.findByRole('button', { name: 'Register Device' }));
      await userEvent.type(screen.getByLabelText('Secure chip ID'), chip);
      if (kind === 'static') await userEvent.selectOptions(screen.getByLabelText('Kind'), 'static');
      return () => userEvent.click(screen.getByRole('button', { name: 'Register' }));
    }

    const TEMPLATE = `https://records.example/patients/verify/${'0'.repeat(32)}?s=${'0'.repeat(16)}`;
    const sunRegistered = (fileReadKey: string | null): FakeResponse => ({
      status: 201,
      body: {
        message: 'SUN tag registered successfully',
        smartTokenId: 'D'.repeat(32),
        secureChipId: 'tag-1',
        kind: 'sun',
        verificationUrl: TEMPLATE,
        sun: { uid: '04DE5F1EACC040', fileReadKey, urlTemplate: TEMPLATE, piccDataOffset: 47, macOffset: 82 },
      },
    });

    it('registers a SUN tag by default and shows the template, offsets and generated key once', async () => {
      const writeText = vi.fn().mockResolvedValue(undefined);
      Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
      const KEY = '00112233445566778899AABBCCDDEEFF';
      const api = tokensApi({ [REGISTER]: sunRegistered(KEY) });
      renderApp(PAGE);
      const submit = await openRegister('tag-1', 'sun');
      expect(screen.getByLabelText('Kind')).toHaveValue('sun');
      await userEvent.type(screen.getByLabelText('Tag UID'), '04DE5F1EACC0');
      await submit();
      expect(screen.getByRole('alert')).toHaveTextContent('The tag UID is 14 hexadecimal characters (7 bytes)');
      await userEvent.type(screen.getByLabelText('Tag UID'), '40');
      await userEvent.type(screen.getByLabelText('SDM file-read key (optional)'), 'XYZ');
      await submit();
      expect(screen.getByRole('alert')).toHaveTextContent('The file-read key is 32 hexadecimal characters');
      expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
      await userEvent.clear(screen.getByLabelText('SDM file-read key (optional)'));
      await submit();
      const dialog = await screen.findByRole('dialog', { name: 'SUN tag registered' });
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        body: { secureChipId: 'tag-1', sun: { uid: '04DE5F1EACC040' } },
      });
      expect(within(dialog).getByLabelText('NDEF URL template')).toHaveValue(TEMPLATE);
      expect(within(dialog).getByTestId('picc-offset')).toHaveTextContent('47');
      expect(within(dialog).getByTestId('mac-offset')).toHaveTextContent('82');
      expect(within(dialog).getByLabelText('SDM file-read key')).toHaveValue(KEY);
      expect(dialog).toHaveTextContent('shown only once');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy SDM file-read key' }));
      expect(writeText).toHaveBeenCalledWith(KEY);
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy NDEF URL template' }));
      expect(writeText).toHaveBeenCalledWith(TEMPLATE);
      await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
      await userEvent.click(screen.getByRole('button', { name: 'Register Device' }));
      expect(screen.queryByDisplayValue(KEY)).not.toBeInTheDocument();
    });

    it('sends a given key and shows no key back', async () => {
      const api = tokensApi({ [REGISTER]: sunRegistered(null) });
      renderApp(PAGE);
      const submit = await openRegister('tag-1', 'sun');
      await userEvent.type(screen.getByLabelText('Tag UID'), '04de5f1eacc040');
      await userEvent.type(screen.getByLabelText('SDM file-read key (optional)'), 'ab'.repeat(16));
      await submit();
      const dialog = await screen.findByRole('dialog', { name: 'SUN tag registered' });
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        body: { sun: { uid: '04de5f1eacc040', fileReadKey: 'ab'.repeat(16) } },
      });
      expect(within(dialog).queryByLabelText('SDM file-read key')).not.toBeInTheDocument();
    });

    it('requires a chip id', async () => {
      const api = tokensApi();
      renderApp(PAGE);
      await userEvent.click(await screen.findByRole('button', { name: 'Register Device' }));
      const dialog = screen.getByRole('dialog', { name: 'Register Device' });
      await userEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please enter the secure chip ID');
      expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    });

    it('shows the verification URL once, with Copy and a QR code', async () => {
      const writeText = vi.fn().mockResolvedValue(undefined);
      Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
      const api = tokensApi({ [REGISTER]: registered('A'.repeat(32), 'chip-9') });
      renderApp(PAGE);
      await (await openRegister(' chip-9 '))();
      const dialog = await screen.findByRole('dialog', { name: 'Device registered' });
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/patients/admin/register', body: { secureChipId: 'chip-9' } });
      expect(within(dialog).getByLabelText('Verification URL')).toHaveValue(URL_);
      expect(within(dialog).getByRole('button', { name: 'Copy Verification URL' })).toHaveFocus();
      expect(dialog).toHaveTextContent('shown only once');
      expect(dialog).toHaveTextContent('AAAAAAAA...AAAAAAAA');
      expect(within(dialog).getByRole('img', { name: 'QR code of the verification URL' })).toBeInTheDocument();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy Verification URL' }));
      expect(writeText).toHaveBeenCalledWith(URL_);
      expect(await within(dialog).findByText('Verification URL copied')).toBeInTheDocument();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      // The URL is gone for good: opening the dialog again starts empty.
      await userEvent.click(screen.getByRole('button', { name: 'Register Device' }));
      expect(screen.queryByText(URL_)).not.toBeInTheDocument();
      expect(screen.getByLabelText('Secure chip ID')).toHaveValue('');
    });

    it('says when copying failed', async () => {
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: vi.fn().mockRejectedValue(new Error('no')) }, configurable: true });
      tokensApi({ [REGISTER]: registered('B'.repeat(32), 'c') });
      renderApp(PAGE);
      await (await openRegister('c'))();
      await userEvent.click(await screen.findByRole('button', { name: 'Copy Verification URL' }));
      expect(await screen.findByText('Could not copy: select the address and copy it by hand.')).toBeInTheDocument();
    });

    it('shows the server message, or the fallback', async () => {
      const api = tokensApi({ [REGISTER]: { status: 409, body: { message: 'A token with this secure chip id already exists.' } } });
      renderApp(PAGE);
      const submit = await openRegister('chip-1');
      await expectSubmitFailures(api, REGISTER, submit, 'A token with this secure chip id already exists.', 'Failed to register token');
    });
  });
});
