/** API paths of the intake (issue 51): items by id, never a patient detail in a URL. */
import { seg } from '../../../lib/api/client';

export const ITEMS_PATH = '/intake/items';

/** /intake/items/{id}. */
export const itemPath = (id: number): string => `${ITEMS_PATH}/${seg(id)}`;
