/** The viewer's touch gestures: a swipe to the previous or next file, a pinch to zoom. */
import { useRef, type PointerEvent as ReactPointerEvent } from 'react';
import { clampZoom, pinchZoom, swipeDirection } from './viewerRules';

/** Where a pinch is: the page's scrolling box, and the point between the fingers in it. */
export interface PinchPoint {
  scroller: HTMLElement;
  x: number;
  y: number;
}

/**
 * Touch on the page (and on the previous and next buttons a phone floats over its edges: a
 * swipe started on one is still a swipe): a swipe to the side goes to the previous or next file
 * (not while zoomed: then the finger moves the picture), two fingers pinch the zoom (the
 * browser's own pinch is turned off there by touch-action, so the header and the patient stay
 * on screen). A mouse drag is neither (it selects text).
 */
export function useGestures({
  zoom,
  zoomable,
  onZoom,
  onSwipe,
}: {
  zoom: number;
  zoomable: boolean;
  onZoom: (zoom: number, at: PinchPoint | null) => void;
  onSwipe: (direction: 'next' | 'previous') => void;
}) {
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const swipeStart = useRef<{ x: number; y: number; id: number } | null>(null);
  const pinch = useRef<{ distance: number; zoom: number } | null>(null);
  const spread = () => {
    const [a, b] = Array.from(pointers.current.values());
    return a && b ? Math.hypot(a.x - b.x, a.y - b.y) : 0;
  };
  const end = (event: ReactPointerEvent) => {
    pointers.current.delete(event.pointerId);
    if (pinch.current) {
      if (pointers.current.size < 2) pinch.current = null;
      swipeStart.current = null;
      return false;
    }
    return true;
  };
  return {
    onPointerDown: (event: ReactPointerEvent) => {
      if (event.pointerType === 'mouse') {
        swipeStart.current = null;
        return;
      }
      pointers.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pointers.current.size === 2 && zoomable) {
        swipeStart.current = null;
        pinch.current = { distance: spread(), zoom };
      } else if (pointers.current.size === 1) {
        swipeStart.current = { x: event.clientX, y: event.clientY, id: event.pointerId };
      } else {
        swipeStart.current = null;
      }
    },
    onPointerMove: (event: ReactPointerEvent) => {
      if (!pointers.current.has(event.pointerId)) return;
      pointers.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (!pinch.current || pointers.current.size < 2) return;
      const [a, b] = Array.from(pointers.current.values());
      const scroller = (event.currentTarget as HTMLElement).querySelector<HTMLElement>('.viewer-scroll');
      const box = scroller?.getBoundingClientRect();
      const at = scroller && box && a && b ? { scroller, x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top } : null;
      onZoom(pinchZoom(pinch.current.zoom, pinch.current.distance, spread()), at);
    },
    onPointerUp: (event: ReactPointerEvent) => {
      if (!end(event)) return;
      const start = swipeStart.current;
      swipeStart.current = null;
      if (!start || start.id !== event.pointerId || clampZoom(zoom) !== 1) return;
      const direction = swipeDirection(event.clientX - start.x, event.clientY - start.y);
      if (direction) onSwipe(direction);
    },
    onPointerCancel: (event: ReactPointerEvent) => {
      end(event);
      swipeStart.current = null;
    },
  };
}
