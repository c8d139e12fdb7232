/**
 * The focus ring (WCAG 1.4.11): at least 3:1 against every background it can sit on. --focus
 * rings controls on the light surfaces (every light background colour of the stylesheet);
 * inside the top bar, the only dark surface with controls on it, --focus-on-dark.
 */
import { stylesheet } from './test/stylesheet';

const css = stylesheet();

const variables = new Map(Array.from(css.matchAll(/(--[\w-]+):\s*(#[0-9a-fA-F]{6})\b/g), (m) => [m[1], m[2]] as const));

function hex(value: string): string {
  const named = /^var\((--[\w-]+)\)$/.exec(value.trim());
  const colour = named?.[1] ? variables.get(named[1]) : value.trim();
  if (!colour || !/^#[0-9a-fA-F]{6}$/.test(colour)) throw new Error(`not a colour: ${value}`);
  return colour;
}

function luminance(colour: string): number {
  const channel = (i: number) => {
    const c = parseInt(colour.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** Every solid background colour the stylesheet paints (hex or a variable). */
const backgrounds = Array.from(css.matchAll(/background(?:-color)?:\s*(#[0-9a-fA-F]{6}|var\(--[\w-]+\))\s*[;}]/g), (m) => hex(m[1] ?? ''));

describe('the focus ring', () => {
  it('is drawn with --focus, and with --focus-on-dark in the top bar', () => {
    expect(css).toMatch(/(^|\n):focus-visible \{ outline: 3px solid var\(--focus\);/);
    expect(css).toMatch(/\.topbar :focus-visible \{ outline-color: var\(--focus-on-dark\); \}/);
  });

  it('has at least 3:1 contrast against every light background', () => {
    const light = [...new Set(backgrounds.filter((colour) => luminance(colour) > 0.5))];
    expect(light).toEqual(expect.arrayContaining(['#ffffff', hex('var(--bg)'), hex('var(--primary-soft)')]));
    const focus = hex('var(--focus)');
    const weak = light.filter((colour) => contrast(focus, colour) < 3).map((colour) => `${colour}: ${contrast(focus, colour).toFixed(2)}`);
    expect(weak).toEqual([]);
    // The colour it replaced, #f0a500, had about 2:1 on white.
    expect(contrast('#f0a500', '#ffffff')).toBeLessThan(3);
  });

  it('has at least 3:1 contrast against the top bar', () => {
    expect(contrast(hex('var(--focus-on-dark)'), hex('var(--primary)'))).toBeGreaterThanOrEqual(3);
    // and against the top bar buttons' hover wash (white at 12% over the blue), #287094
    expect(contrast(hex('var(--focus-on-dark)'), '#287094')).toBeGreaterThanOrEqual(3);
  });
});
