/** A page's or an image's picture that failed to load: new links, or why it failed. */
import { useRef, useState } from 'react';
import { messageOf } from '../../../../lib/api/client';

/**
 * An image (at `src`) that could not be loaded: when its link has expired, the viewer asks for
 * new ones, once per expiry (a picture failing again by the new links says why instead of
 * opening the file again and again; one that loads lets the next expiry, later in the same
 * file, ask again: `onLoad`); otherwise it says why, in the server's words when it gave some (an
 * image element cannot read them: the same link is asked once more, as data).
 */
export function useImageFailure(src: string, expired: () => boolean, onExpired: () => void) {
  const [failure, setFailure] = useState<{ src: string; message: string | null } | null>(null);
  const renewed = useRef(false);
  const onLoad = () => {
    renewed.current = false;
  };
  const onError = () => {
    if (expired() && !renewed.current) {
      renewed.current = true;
      onExpired();
      return;
    }
    setFailure({ src, message: null });
    fetch(src, { credentials: 'same-origin' })
      .then(async (response) => (response.ok ? null : messageOf(await response.json().catch(() => null))))
      .catch(() => null)
      .then((message) => message && setFailure((current) => (current?.src === src ? { src, message } : current)));
  };
  const failed = failure?.src === src;
  return { failed, message: failed ? failure.message : null, onError, onLoad };
}
