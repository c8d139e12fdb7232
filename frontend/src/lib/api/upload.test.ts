import { setSessionExpiredHandler } from '../session';
import { mockXhr } from '../../test/xhr';
import { ApiError } from './client';
import { UPLOAD_TIMEOUT_MS, uploadMultipart } from './upload';

const file = () => new File(['hello'], 'note.txt', { type: 'text/plain' });

describe('uploadMultipart', () => {
  afterEach(() => setSessionExpiredHandler(null));

  it('posts fields before the file, with the token header, progress and a 60 s timeout', async () => {
    const Xhr = mockXhr();
    window.localStorage.setItem('token', 'tok-1');
    const progress = vi.fn();
    const done = uploadMultipart({
      path: '/blobs/ward%20a/p-1',
      query: { overwrite: true },
      fields: [
        ['filename', 'note.txt'],
        ['isProfileImage', 'false'],
      ],
      file: file(),
      fileName: 'note.txt',
      onProgress: progress,
    });
    const xhr = Xhr.instances[0]!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/blobs/ward%20a/p-1?overwrite=true');
    expect(xhr.headers['x-auth-token']).toBe('tok-1');
    expect(xhr.timeout).toBe(UPLOAD_TIMEOUT_MS);
    expect(UPLOAD_TIMEOUT_MS).toBe(60_000);
    expect(xhr.parts()).toEqual([
      ['filename', 'note.txt'],
      ['isProfileImage', 'false'],
      ['file', 'file:note.txt'],
    ]);
    xhr.progress(50, 200);
    expect(progress).toHaveBeenLastCalledWith(25);
    xhr.respond(201, { message: 'File uploaded successfully' });
    await expect(done).resolves.toEqual({ message: 'File uploaded successfully' });
  });

  it('rejects with the status and server message', async () => {
    const Xhr = mockXhr();
    const done = uploadMultipart({ path: '/x', fields: [], file: file(), fileName: 'a' });
    Xhr.instances[0]!.respond(413, { message: 'Too large' });
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 413, serverMessage: 'Too large' });
  });

  it('rejects with status 0 on network errors and timeouts', async () => {
    const Xhr = mockXhr();
    const failed = uploadMultipart({ path: '/x', fields: [], file: file(), fileName: 'a' });
    Xhr.instances[0]!.fail();
    await expect(failed).rejects.toMatchObject({ status: 0 });
    const timedOut = uploadMultipart({ path: '/x', fields: [], file: file(), fileName: 'a' });
    Xhr.instances[1]!.timeOut();
    await expect(timedOut).rejects.toMatchObject({ status: 0 });
  });

  it('applies the 401 rule', async () => {
    const Xhr = mockXhr();
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    window.localStorage.setItem('token', 'tok-1');
    const done = uploadMultipart({ path: '/x', fields: [], file: file(), fileName: 'a' });
    Xhr.instances[0]!.respond(401, { message: 'Your session has expired. Please log in again.' });
    await expect(done).rejects.toMatchObject({ status: 401 });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(window.localStorage.getItem('token')).toBeNull();
  });
});
