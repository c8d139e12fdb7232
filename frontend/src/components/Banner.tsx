/** A message that stays until the person closes it (spec section 4: banners close manually). */
import type { ReactNode } from 'react';

interface BannerProps {
  kind: 'error' | 'success' | 'info' | 'warning';
  /** The message; without one (null) there is no banner. */
  children: ReactNode;
  onClose?: () => void;
}

export function Banner({ kind, children, onClose }: BannerProps) {
  if (children === null || children === undefined || children === false || children === '') return null;
  return (
    <div className={`banner banner-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <span className="banner-text">{children}</span>
      {onClose ? (
        <button type="button" className="banner-close" onClick={onClose} aria-label="Dismiss message">
          ×
        </button>
      ) : null}
    </div>
  );
}
