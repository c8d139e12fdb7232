import { render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { preloadable } from './preloadable';

const Greeting = ({ name }: { name: string }) => <p>Hello {name}</p>;

describe('preloadable', () => {
  it('renders a component whose chunk has arrived at once, never its Suspense fallback', async () => {
    const chunk = preloadable(() => Promise.resolve({ default: Greeting }));
    await chunk.load();
    render(
      <Suspense fallback={<p>Loading…</p>}>
        <chunk.Component name="Ada" />
      </Suspense>,
    );
    // In the first commit: React's lazy would show the fallback first, then hold the content
    // back for 300 ms.
    expect(screen.getByText('Hello Ada')).toBeInTheDocument();
    expect(screen.queryByText('Loading…')).not.toBeInTheDocument();
  });

  it('loads a chunk not yet here under Suspense, once however often it is asked for', async () => {
    let imports = 0;
    const chunk = preloadable(() => {
      imports += 1;
      return Promise.resolve({ default: Greeting });
    });
    render(
      <Suspense fallback={<p>Loading…</p>}>
        <chunk.Component name="Grace" />
      </Suspense>,
    );
    expect(screen.getByText('Loading…')).toBeInTheDocument();
    expect(await screen.findByText('Hello Grace')).toBeInTheDocument();
    await chunk.load();
    expect(imports).toBe(1);
  });

  it('asks again for a chunk that failed to load', async () => {
    let imports = 0;
    const chunk = preloadable(() => {
      imports += 1;
      return imports === 1 ? Promise.reject<{ default: typeof Greeting }>(new Error('offline')) : Promise.resolve({ default: Greeting });
    });
    await expect(chunk.load()).rejects.toThrow('offline');
    await expect(chunk.load()).resolves.toEqual({ default: Greeting });
    expect(imports).toBe(2);
  });
});
