/** A message that stays until the person closes it (spec section 4: banners close manually). */
import type { ReactNode } from 'react';

interface BannerProps {
  kind: 'error' | 'success' | 'info' | 'warning';
  children: ReactNode;
  onClose?: () => void;
}

export function Banner({ kind, children, onClose }: BannerProps) {
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
