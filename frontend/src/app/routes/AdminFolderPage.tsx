/** /admin/containers/:containerName/folders/:folderName: the folder page (files feature) with the
 * folder's access history (audit feature) below it. */
import { useParams } from 'react-router-dom';
import { AccessHistory } from '../../features/audit/components/AccessHistory';
import FolderPage from '../../features/files/routes/FolderPage';

export default function AdminFolderPage() {
  const params = useParams();
  const container = params.containerName ?? '';
  const folder = params.folderName ?? '';
  return (
    <FolderPage>
      <AccessHistory key={`${container}\u0000${folder}`} containerName={container} folderName={folder} />
    </FolderPage>
  );
}
