import {
  assignErrorText,
  assignFormComplete,
  assignPayload,
  markRedirect,
  REDIRECT_GUARD_MS,
  redirectedRecently,
  shortTokenId,
  verifyDecision,
} from './smartTokens';

const ID = '0123456789ABCDEF0123456789ABCDEF';
const SIG = '01234567-89ABCDEF-00000000-FFFFFFFF';

describe('shortTokenId', () => {
  it('keeps ids shorter than 16 characters whole', () => {
    expect(shortTokenId('')).toBe('');
    expect(shortTokenId('ABCDEFGHIJKLMNO')).toBe('ABCDEFGHIJKLMNO'); // 15
  });
  it('shows first 8 and last 8 from 16 characters on', () => {
    expect(shortTokenId('ABCDEFGHIJKLMNOP')).toBe('ABCDEFGH...IJKLMNOP'); // 16
    expect(shortTokenId(ID)).toBe('01234567...89ABCDEF'); // 32
  });
});

describe('assign form', () => {
  const form = { containerName: 'ward', folderName: 'p-1', patientName: 'Jane', patientDateOfBirth: '' };
  it('requires container, folder and a non-blank name', () => {
    expect(assignFormComplete(form)).toBe(true);
    expect(assignFormComplete({ ...form, containerName: '' })).toBe(false);
    expect(assignFormComplete({ ...form, folderName: '' })).toBe(false);
    expect(assignFormComplete({ ...form, patientName: '   ' })).toBe(false);
  });
  it('trims the name, sends a blank one as Unknown Patient, and an empty date as empty', () => {
    expect(assignPayload('T', { ...form, patientName: '  Jane  ' })).toEqual({
      tokenId: 'T',
      containerName: 'ward',
      folderName: 'p-1',
      patientName: 'Jane',
      patientDateOfBirth: '',
    });
    expect(assignPayload('T', { ...form, patientName: ' ', patientDateOfBirth: '1980-02-03' })).toMatchObject({
      patientName: 'Unknown Patient',
      patientDateOfBirth: '1980-02-03',
    });
  });
  it('words assign failures as spec section 8 says', () => {
    expect(assignErrorText('Cannot assign a revoked token. Reactivate it first.')).toBe(
      'Cannot assign a revoked token. Please reactivate the token first.',
    );
    expect(assignErrorText('Folder already assigned to token X')).toBe(
      'This folder is already assigned to another token. The system will handle the reassignment.',
    );
    expect(assignErrorText('Folder not found')).toBe('Folder not found');
    expect(assignErrorText(null)).toBe('Failed to assign token');
  });
});

describe('verifyDecision', () => {
  it('needs both the id and the signature', () => {
    expect(verifyDecision(undefined, SIG)).toEqual({ kind: 'missing' });
    expect(verifyDecision(ID, null)).toEqual({ kind: 'missing' });
    expect(verifyDecision(ID, '')).toEqual({ kind: 'missing' });
  });
  it('rejects signatures with anything but A-F, digits and hyphens', () => {
    expect(verifyDecision(ID, 'XYZ')).toEqual({ kind: 'bad-signature' });
    expect(verifyDecision(ID, 'abcdef01')).toEqual({ kind: 'bad-signature' });
    expect(verifyDecision(ID, `${SIG} `)).toEqual({ kind: 'bad-signature' });
    expect(verifyDecision(ID, '0123<script>')).toEqual({ kind: 'bad-signature' });
  });
  it('does not redirect links the server would not accept', () => {
    expect(verifyDecision(ID, 'ABC-123')).toEqual({ kind: 'not-valid' });
    expect(verifyDecision(ID, '0123456789ABCDEF00000000FFFFFFFF')).toEqual({ kind: 'not-valid' });
    expect(verifyDecision(ID.toLowerCase(), SIG)).toEqual({ kind: 'not-valid' });
    expect(verifyDecision(ID.slice(1), SIG)).toEqual({ kind: 'not-valid' });
    expect(verifyDecision(`${ID}/x`, SIG)).toEqual({ kind: 'not-valid' });
  });
  it('redirects a well-formed link to the server verification address', () => {
    expect(verifyDecision(ID, SIG)).toEqual({ kind: 'redirect', path: `/patients/verify/${ID}?s=${SIG}` });
  });
});

describe('redirect guard', () => {
  it('holds back a second redirect to the same link within the window', () => {
    const storage = window.sessionStorage;
    storage.clear();
    expect(redirectedRecently('/a', 1_000, storage)).toBe(false);
    expect(markRedirect('/a', 1_000, storage)).toBe(true);
    expect(redirectedRecently('/a', 1_000 + REDIRECT_GUARD_MS - 1, storage)).toBe(true);
    expect(redirectedRecently('/b', 1_000, storage)).toBe(false);
    expect(redirectedRecently('/a', 1_000 + REDIRECT_GUARD_MS, storage)).toBe(false);
    storage.clear();
  });
  it('treats unusable storage as a reason not to redirect', () => {
    const broken = {
      getItem: () => {
        throw new Error('blocked');
      },
      setItem: () => {
        throw new Error('blocked');
      },
    };
    expect(redirectedRecently('/a', 1, broken)).toBe(true);
    expect(markRedirect('/a', 1, broken)).toBe(false);
  });
});
