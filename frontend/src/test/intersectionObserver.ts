/** A stand-in for the browser's IntersectionObserver (jsdom has no layout): the test says which
 * elements come near the screen. Install with `vi.stubGlobal('IntersectionObserver', FakeObserver)`
 * after `FakeObserver.reset()`. */
import { act } from '@testing-library/react';

export class FakeObserver {
  static all: FakeObserver[] = [];
  readonly watched = new Set<Element>();
  constructor(private readonly callback: IntersectionObserverCallback) {
    FakeObserver.all.push(this);
  }
  observe(node: Element) {
    this.watched.add(node);
  }
  unobserve(node: Element) {
    this.watched.delete(node);
  }
  disconnect() {
    this.watched.clear();
  }
  static reset() {
    FakeObserver.all = [];
  }
  /** `nodes` come near the screen: every observer then watching one of them is told (once:
   * not an observer made meanwhile). */
  static show(nodes: Element[]) {
    for (const observer of [...FakeObserver.all]) {
      const entries = nodes
        .filter((node) => observer.watched.has(node))
        .map((target) => ({ target, isIntersecting: true }) as unknown as IntersectionObserverEntry);
      if (entries.length) act(() => observer.callback(entries, observer as unknown as IntersectionObserver));
    }
  }
}
