import { formatDateOnly, formatDateTime, formatFileSize, formatTime, plural, resourceLabel, roleLabel } from './format';

describe('format helpers', () => {
  it('names resources from container, folder and blob', () => {
    expect(resourceLabel({ containerName: 'ward-a', folderName: 'p-1', blobName: '' })).toBe('ward-a / p-1');
    expect(resourceLabel({ containerName: '', folderName: '', blobName: '' })).toBe('—');
  });
  it('pluralises and labels roles', () => {
    expect(plural(1, 'folder')).toBe('1 folder');
    expect(plural(3, 'folder')).toBe('3 folders');
    expect(roleLabel('nurse')).toBe('Nurse');
  });
});

describe('formatFileSize', () => {
  it('shows 0 bytes, and nonsense as 0 bytes', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(-5)).toBe('0 Bytes');
    expect(formatFileSize(Number.NaN)).toBe('0 Bytes');
  });
  it('keeps whole bytes below 1024', () => {
    expect(formatFileSize(1)).toBe('1 Bytes');
    expect(formatFileSize(1023)).toBe('1023 Bytes');
  });
  it('switches unit at exactly 1024, with 2 decimals', () => {
    expect(formatFileSize(1024)).toBe('1.00 KB');
    expect(formatFileSize(1536)).toBe('1.50 KB');
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1.00 MB');
    expect(formatFileSize(1024 * 1024 - 20 * 1024)).toBe('1004.00 KB');
    expect(formatFileSize(1024 * 1024)).toBe('1.00 MB');
    expect(formatFileSize(50 * 1024 * 1024)).toBe('50.00 MB');
    expect(formatFileSize(1024 ** 3)).toBe('1.00 GB');
    expect(formatFileSize(1024 ** 4)).toBe('1.00 TB');
  });
  it('stops at TB', () => {
    expect(formatFileSize(1024 ** 5)).toBe('1024.00 TB');
  });
});

describe('formatDateOnly', () => {
  it('shows a calendar date without shifting the day', () => {
    expect(formatDateOnly('1980-02-03')).toBe('03 Feb 1980');
    expect(formatDateOnly('1999-12-31')).toBe('31 Dec 1999');
    expect(formatDateOnly('someday')).toBe('someday');
  });
});

describe('formatDateTime and formatTime', () => {
  it('write the reader\'s local time in one unambiguous 24-hour form', () => {
    const afternoon = new Date(2026, 10, 3, 14, 5, 9); // local time
    expect(formatDateTime(afternoon)).toBe('03 Nov 2026, 14:05:09');
    expect(formatDateTime(afternoon.getTime())).toBe('03 Nov 2026, 14:05:09');
    expect(formatDateTime(afternoon.toISOString())).toBe('03 Nov 2026, 14:05:09');
    expect(formatTime(new Date(2026, 0, 1, 7, 0, 0))).toBe('07:00:00');
    expect(formatDateTime('not a date')).toBe('not a date');
  });

  it('create no Intl formatter (its first one costs a phone tens of milliseconds)', () => {
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    const toLocale = vi.spyOn(Date.prototype, 'toLocaleString');
    formatDateTime(new Date());
    formatTime(new Date());
    formatDateOnly('1980-02-03');
    expect(made).not.toHaveBeenCalled();
    expect(toLocale).not.toHaveBeenCalled();
  });
});
