import { shownPage } from './SearchResults';

describe('shownPage', () => {
  it('tells a PDF’s page, and a later page of a multi-page scan', () => {
    expect(shownPage({ contentType: 'application/pdf', page: 1 })).toBe(1);
    expect(shownPage({ contentType: 'Application/PDF; charset=binary', page: 4 })).toBe(4);
    expect(shownPage({ contentType: 'image/tiff', page: 2 })).toBe(2);
  });

  it('tells none for a single image, a text or no page', () => {
    expect(shownPage({ contentType: 'image/png', page: 1 })).toBeNull();
    expect(shownPage({ contentType: 'text/plain', page: null })).toBeNull();
    expect(shownPage({ contentType: 'application/pdf', page: null })).toBeNull();
  });
});
