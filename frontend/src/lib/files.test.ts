import { extensionOf, fileTypeBadge, listedNameFor, PROFILE_IMAGE_MAX_BYTES, PROFILE_MSG, profileImageProblem } from './files';

describe('extensionOf', () => {
  it('lower-cases the last extension', () => {
    expect(extensionOf('scan.PDF')).toBe('pdf');
    expect(extensionOf('archive.tar.gz')).toBe('gz');
  });
  it("answers 'none' without one", () => {
    expect(extensionOf('README')).toBe('none');
    expect(extensionOf('.bashrc')).toBe('none');
    expect(extensionOf('trailing.')).toBe('none');
    expect(extensionOf('odd.a b')).toBe('none');
  });
});

describe('fileTypeBadge', () => {
  it('calls a profile image IMAGE whatever its type', () => {
    expect(fileTypeBadge({ name: 'patient-profile.jpg', contentType: 'image/jpeg', isProfileImage: true })).toBe('IMAGE');
  });
  it('calls .txt files TXT', () => {
    expect(fileTypeBadge({ name: 'notes.txt', contentType: 'text/plain; charset=utf-8' })).toBe('TXT');
    expect(fileTypeBadge({ name: 'NOTES.TXT', contentType: '' })).toBe('TXT');
  });
  it.each([
    ['scan.pdf', 'application/pdf', 'PDF'],
    ['x.png', 'image/png', 'PNG'],
    ['x.svg', 'image/svg+xml', 'SVG'],
    ['x.csv', 'text/csv; charset=utf-8', 'CSV'],
    ['x.zip', 'application/x-zip-compressed', 'ZIP-COMPRESSED'],
  ])('uses the content subtype, cleaned: %s (%s) is %s', (name, contentType, badge) => {
    expect(fileTypeBadge({ name, contentType })).toBe(badge);
  });
  it.each([
    ['report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'DOCX'],
    ['data.bin', 'application/octet-stream', 'BIN'],
    ['blob', 'application/octet-stream', 'FILE'],
    ['blob', null, 'FILE'],
    ['blob', undefined, 'FILE'],
  ])('falls back to the extension for uninformative types, then FILE: %s (%s) is %s', (name, contentType, badge) => {
    expect(fileTypeBadge({ name, contentType })).toBe(badge);
  });
});

describe('listedNameFor', () => {
  it('spells the name in NFC, as the server lists it', () => {
    expect(listedNameFor('cafe\u0301.txt')).toBe('caf\u00e9.txt');
    expect(listedNameFor(' cafe\u0301.rtf ')).toBe('caf\u00e9.txt');
  });
  it('lists an RTF under its .txt name', () => {
    expect(listedNameFor('letter.rtf')).toBe('letter.txt');
    expect(listedNameFor('Letter.RTF')).toBe('Letter.txt');
    expect(listedNameFor('a.b.rtf')).toBe('a.b.txt');
  });
  it('keeps other names', () => {
    expect(listedNameFor('scan.pdf')).toBe('scan.pdf');
    expect(listedNameFor('rtf')).toBe('rtf');
  });
});

describe('profileImageProblem', () => {
  const image = (over: Partial<{ name: string; type: string; size: number }> = {}) => ({
    name: 'face.png',
    type: 'image/png',
    size: 1000,
    ...over,
  });
  it('asks for an image when none is chosen', () => {
    expect(profileImageProblem(null)).toBe(PROFILE_MSG.missing);
  });
  it('accepts JPEG, JPG, PNG, GIF, BMP and WebP', () => {
    for (const type of ['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/bmp', 'image/webp']) {
      expect(profileImageProblem(image({ type }))).toBeNull();
    }
    expect(profileImageProblem(image({ name: 'face.WEBP', type: '' }))).toBeNull();
  });
  it('refuses other types', () => {
    expect(profileImageProblem(image({ type: 'image/svg+xml' }))).toBe(PROFILE_MSG.invalidType);
    expect(profileImageProblem(image({ name: 'x.pdf', type: 'application/pdf' }))).toBe(PROFILE_MSG.invalidType);
    expect(profileImageProblem(image({ name: 'x.tiff', type: '' }))).toBe(PROFILE_MSG.invalidType);
  });
  it('requires less than 10MB', () => {
    expect(profileImageProblem(image({ size: PROFILE_IMAGE_MAX_BYTES - 1 }))).toBeNull();
    expect(profileImageProblem(image({ size: PROFILE_IMAGE_MAX_BYTES }))).toBe(PROFILE_MSG.tooLarge);
  });
});
