/** The viewer's chunk: loaded when the folder page first shows it, or ahead by a first load at
 * ?view= (api/prefetch.ts), in which case the viewer renders without waiting on Suspense. */
import { preloadable } from '../../../../lib/preloadable';

export const VIEWER = preloadable(() => import('./FileViewer'));
