/** The folder page: the profile image, and deleting files (admins). */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, renderApp, signIn } from '../../../test/utils';
import { mockXhr } from '../../../test/xhr';
import { DOCTOR, PAGE, ADMIN_PAGE, LIST, TRASH, letter, profile, listing, uploaded, pick, loadScreen } from './folderPageTestKit';

beforeAll(loadScreen);

describe('folder page: profile image', () => {
  beforeEach(() => {
    signIn(DOCTOR);
    URL.createObjectURL = vi.fn(() => 'blob:profile');
    URL.revokeObjectURL = vi.fn();
  });

  it('checks the chosen image and uploads it as the profile image', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Add Profile Image' }));
    const dialog = screen.getByRole('dialog', { name: 'Add Profile Image' });
    expect(dialog).toHaveTextContent('JPEG, PNG, GIF, BMP or WebP, less than 10MB.');
    expect(dialog).not.toHaveTextContent('already has a profile image');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Upload Profile Image' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please select a profile image');
    pick('Profile image', new File(['%PDF'], 'scan.pdf', { type: 'application/pdf' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)');
    const huge = new File(['x'], 'huge.png', { type: 'image/png' });
    Object.defineProperty(huge, 'size', { value: 10 * 1024 * 1024 });
    pick('Profile image', huge);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Profile image must be less than 10MB');
    pick('Profile image', new File(['png'], 'face.png', { type: 'image/png' }));
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(dialog).getByRole('img', { name: 'Preview of the selected image' })).toHaveAttribute('src', 'blob:profile');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Upload Profile Image' }));
    const xhr = Xhr.instances[0]!;
    expect(xhr.parts()).toEqual([
      ['filename', 'face.png'],
      ['isProfileImage', 'true'],
      ['file', 'file:face.png'],
    ]);
    // Processing: the dialog cannot be closed.
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeDisabled();
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    xhr.respond(201, uploaded({ profileImageProcessing: { standardName: 'patient-profile.jpg' } }));
    expect(await screen.findByText('Profile image processed and saved as patient-profile.jpg')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('falls back to the plain success message, and shows upload errors in the dialog', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Add Profile Image' }));
    pick('Profile image', new File(['png'], 'face.png', { type: 'image/png' }));
    await userEvent.click(screen.getByRole('button', { name: 'Upload Profile Image' }));
    Xhr.instances[0]!.respond(400, { message: 'The file is not a valid image.' });
    expect(await within(screen.getByRole('dialog')).findByRole('alert')).toHaveTextContent('The file is not a valid image.');
    await userEvent.click(screen.getByRole('button', { name: 'Upload Profile Image' }));
    Xhr.instances[1]!.fail();
    expect(await within(screen.getByRole('dialog')).findByRole('alert')).toHaveTextContent('Failed to upload profile image');
    await userEvent.click(screen.getByRole('button', { name: 'Upload Profile Image' }));
    Xhr.instances[2]!.respond(201, uploaded());
    expect(await screen.findByText('Profile image uploaded successfully')).toBeInTheDocument();
  });

  it('shows the current image, fetched with the session header, and warns before replacing it', async () => {
    const api = mockApi({
      [LIST]: { body: { blobs: [letter, profile], hasProfileImage: true } },
      'GET /api/blobs/ward%20a/p-1/profile-image': { body: 'jpeg-bytes' },
    });
    renderApp(PAGE);
    const img = await screen.findByRole('img', { name: 'Profile image of patient p-1' });
    await waitFor(() => expect(img).toHaveAttribute('src', 'blob:profile'));
    const call = api.calls.find((c) => c.path.endsWith('/profile-image'))!;
    expect(call.token).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Update Profile Image' }));
    expect(screen.getByRole('dialog', { name: 'Update Profile Image' })).toHaveTextContent(
      'This folder already has a profile image. Uploading a new one will replace it.',
    );
  });

  it('shows a placeholder without an image', async () => {
    const api = mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    expect(await screen.findByText('No profile image')).toBeInTheDocument();
    expect(api.calls.some((c) => c.path.endsWith('/profile-image'))).toBe(false);
  });
});

describe('folder page: deleting (admins)', () => {
  beforeEach(() => signIn(ADMIN));

  it('confirms, deletes and reports the server message', async () => {
    const api = mockApi({
      [LIST]: { body: listing },
      [TRASH]: { body: { blobs: [], trashDays: 30 } },
      'DELETE /api/blobs/ward%20a/p-1/scan.pdf': { body: { message: 'File deleted successfully' } },
    });
    renderApp(ADMIN_PAGE);
    expect(await screen.findByText('The trash of this folder is empty.')).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'Delete scan.pdf' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete file' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete scan.pdf?');
    expect(dialog).toHaveTextContent("It goes to this folder's trash for 30 days, where an admin can restore it");
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('File deleted successfully')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('names a profile image, and shows the fallback on failure', async () => {
    mockApi({
      [LIST]: { body: { blobs: [profile], hasProfileImage: true } },
      'GET /api/blobs/ward%20a/p-1/profile-image': { status: 404, body: { message: 'This folder has no profile image.' } },
      'DELETE /api/blobs/ward%20a/p-1/patient-profile.jpg': { status: 500 },
    });
    URL.createObjectURL = vi.fn(() => 'blob:x');
    URL.revokeObjectURL = vi.fn();
    renderApp(ADMIN_PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete patient-profile.jpg' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete profile image' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to delete file');
  });
});
