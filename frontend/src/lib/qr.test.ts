import { qrShape } from './qr';

describe('qrShape', () => {
  it('draws a version-sized symbol with its quiet zone', () => {
    const shape = qrShape('https://records.example/patients/verify/0123456789ABCDEF0123456789ABCDEF?s=01234567-89ABCDEF-00000000-FFFFFFFF');
    // A 17 + 4v module symbol plus 4 modules of margin on each side.
    expect((shape.size - 8 - 17) % 4).toBe(0);
    expect(shape.size).toBeGreaterThanOrEqual(21 + 8);
    // The top-left finder pattern starts at the margin.
    expect(shape.path.startsWith('M4 4h1v1h-1z')).toBe(true);
  });
  it('is the same for the same text', () => {
    expect(qrShape('abc', 2)).toEqual(qrShape('abc', 2));
    expect(qrShape('abc', 2).size).toBe(25);
  });
});
