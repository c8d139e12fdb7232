/**
 * A lazily loaded component whose code can be fetched ahead (a first load's screens, the viewer
 * at ?view=): once its chunk has arrived it renders at once, where React's `lazy` suspends on
 * every first render, even of a chunk already here, and React then holds the content back for
 * its Suspense fallback's 300 ms (measured on the viewer's first load: the page picture asked
 * 250 ms after its opening had answered, the main thread idle meanwhile).
 */
import { lazy, type ComponentType, type JSX } from 'react';

export interface Preloadable<P extends object> {
  /** The component: the loaded one when its chunk is here, else a lazy one (under Suspense). */
  Component: (props: P) => JSX.Element;
  /** Fetches the chunk (once; later calls return the same promise). */
  load: () => Promise<{ default: ComponentType<P> }>;
}

export function preloadable<P extends object>(importer: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<{ default: ComponentType<P> }> | null = null;
  const load = () => {
    loading ??= importer().then(
      (module) => {
        loaded = module.default;
        return module;
      },
      (error: unknown) => {
        loading = null; // a failed chunk is asked again by the next render or preload
        throw error;
      },
    );
    return loading;
  };
  const Lazy = lazy(load);
  function Component(props: P) {
    const Loaded = loaded;
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  }
  return { Component, load };
}
