import { describe, expect, it } from 'vitest';
import { counted } from './count.js';

describe('counted', () => {
  it('says one thing in the singular and any other number in the plural', () => {
    expect(counted(1, 'file')).toBe('1 file');
    expect(counted(0, 'file')).toBe('0 files');
    expect(counted(3, 'directory', 'directories')).toBe('3 directories');
  });
});
