import { AUDIT_OPERATIONS } from '../../lib/server.gen';
import { OPERATION_WORDS, operationWords } from './operations';

describe('audit operations in words', () => {
  it('words every operation the server records, each differently', () => {
    expect(Object.keys(OPERATION_WORDS).sort()).toEqual([...AUDIT_OPERATIONS].sort());
    const words = Object.values(OPERATION_WORDS);
    expect(new Set(words).size).toBe(words.length);
    expect(operationWords('file_view')).toBe('Viewed a file');
    expect(operationWords('file_upload')).toBe('Uploaded');
    expect(operationWords('login')).toBe('Signed in');
  });

  it('shows an operation it does not know (a newer server) as its code', () => {
    expect(operationWords('something_new')).toBe('something_new');
    expect(operationWords('toString')).toBe('toString');
  });
});
