import { plural, resourceLabel, roleLabel } from './format';

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
