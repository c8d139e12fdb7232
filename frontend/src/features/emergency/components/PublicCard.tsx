/** The frame of the public SmartToken pages: no app layout, readable on a phone. */
import type { ReactNode } from 'react';

export function PublicCard({ title, children, tone }: { title: string; children?: ReactNode; tone?: 'error' }) {
  return (
    <main className="public-page">
      <div className={tone === 'error' ? 'public-card public-card-error' : 'public-card'}>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
