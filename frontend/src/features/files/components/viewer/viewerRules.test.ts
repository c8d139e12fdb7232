/** The viewer's pure rules added by issue 50: pinches, the URL's page, originals, boxes, matches. */
import { boxStyle, firstMatchFrom, opensInBrowser, pinchZoom, requestedPage, separatorBefore, stepMatch } from './viewerRules';

const word = (box: [number, number, number, number]) => ({ text: 'w', box });

describe('the viewer rules', () => {
  it('zooms a pinch by how far the fingers moved apart, between fitted and the largest step', () => {
    expect(pinchZoom(1, 100, 200)).toBe(2);
    expect(pinchZoom(2, 100, 50)).toBe(1);
    expect(pinchZoom(1, 100, 50)).toBe(1);
    expect(pinchZoom(3, 100, 300)).toBe(4);
    expect(pinchZoom(1.5, 0, 300)).toBe(1.5);
  });

  it('reads the page of the URL as a whole number from 1', () => {
    expect(requestedPage('3')).toBe(3);
    expect(requestedPage(null)).toBe(1);
    expect(requestedPage('0')).toBe(1);
    expect(requestedPage('2.5')).toBe(1);
    expect(requestedPage('x')).toBe(1);
  });

  it('opens in a tab only the originals a browser shows', () => {
    expect(opensInBrowser('application/pdf')).toBe(true);
    expect(opensInBrowser('text/plain; charset=utf-8')).toBe(true);
    expect(opensInBrowser('video/mp4')).toBe(true);
    expect(opensInBrowser('application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe(false);
    expect(opensInBrowser('application/zip')).toBe(false);
    expect(opensInBrowser(undefined)).toBe(false);
  });

  it('places a box in percentages of the page, within it', () => {
    expect(boxStyle([0.1, 0.5, 0.3, 0.525])).toEqual({ left: '10%', top: '50%', width: '20%', height: '2.5%' });
    expect(boxStyle([-0.1, 0.9, 0.2, 1.2])).toEqual({ left: '0%', top: '90%', width: '30%', height: '30%' });
  });

  it('puts a space between words of a line and a line break before a new line', () => {
    expect(separatorBefore(undefined, word([0.1, 0.1, 0.2, 0.12]))).toBe('');
    expect(separatorBefore(word([0.1, 0.1, 0.2, 0.12]), word([0.22, 0.1, 0.3, 0.12]))).toBe(' ');
    expect(separatorBefore(word([0.5, 0.1, 0.6, 0.12]), word([0.1, 0.15, 0.2, 0.17]))).toBe('\n');
    // Back at the left on the same height (a column): a new line too.
    expect(separatorBefore(word([0.5, 0.1, 0.6, 0.12]), word([0.1, 0.1, 0.2, 0.12]))).toBe('\n');
  });

  it('starts a find at the first match on the page shown or after, and steps round', () => {
    const matches = [
      { page: 1, start: 0, end: 1 },
      { page: 3, start: 0, end: 1 },
      { page: 3, start: 4, end: 5 },
    ];
    expect(firstMatchFrom(matches, 2)).toBe(1);
    expect(firstMatchFrom(matches, 3)).toBe(1);
    expect(firstMatchFrom(matches, 4)).toBe(0);
    expect(stepMatch(2, 3, 1)).toBe(0);
    expect(stepMatch(0, 3, -1)).toBe(2);
    expect(stepMatch(null, 3, -1)).toBe(2);
    expect(stepMatch(null, 0, 1)).toBe(0);
  });
});
