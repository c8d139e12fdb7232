/** /search: the search feature's results screen. A hit opens its folder page in the app, with the
 * viewer at the match (issue 50); no new tab. */
import { useMemo } from 'react';
import SearchResultsPage from '../../features/search/routes/SearchPage';
import { isIosSafari } from '../../lib/device';

export default function SearchPage() {
  const ios = useMemo(() => isIosSafari(), []);
  return <SearchResultsPage ios={ios} />;
}
