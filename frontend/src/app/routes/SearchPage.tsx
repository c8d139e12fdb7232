/** /search: the search feature's results screen, opening a result the files feature's way (the
 * view link in a new tab, a PDF at the matching page). */
import { useFileOpener } from '../../features/files/useOpenFile';
import SearchResultsPage from '../../features/search/routes/SearchPage';
import { isPdf } from '../../lib/files';

export default function SearchPage() {
  const { openFile, ios } = useFileOpener();
  return (
    <SearchResultsPage
      ios={ios}
      // Only a PDF viewer takes #page=N.
      onOpen={(result) =>
        openFile(result.containerName, result.folderName, result.blobName, { page: isPdf(result.contentType) ? result.page : null })
      }
    />
  );
}
