import { screensFor } from './routes';

describe('screensFor', () => {
  it('starts a signed-in screen together with the layout, a public one alone', () => {
    const folder = screensFor('/containers/ward-east/folders/patient-2');
    expect(folder).toHaveLength(2);
    const [layout] = folder;
    expect(screensFor('/users/edit/7')).toEqual([layout, expect.anything()]);
    expect(screensFor('/login')).toHaveLength(1);
    expect(screensFor('/emergency')).toHaveLength(1);
    expect(screensFor('/login')[0]).not.toBe(layout);
    expect(screensFor('/nowhere/at/all')).toEqual([]);
  });

  it('loads the screen the route table renders for the path', async () => {
    const folder = screensFor('/containers/ward-east/folders/patient-2')[1];
    if (!folder) throw new Error('no screen for the folder page');
    const module = (await folder.load()) as { default: unknown };
    expect(module.default).toBeTypeOf('function');
  });
});
