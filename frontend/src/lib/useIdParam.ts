/** A route parameter that names a record by its id (e.g. /users/edit/:userId). */
import { useParams } from 'react-router-dom';

/** The parameter as a positive whole number, or null when it is not one. */
export function useIdParam(name: string): number | null {
  const id = Number(useParams()[name]);
  return Number.isInteger(id) && id > 0 ? id : null;
}
