/**
 * The folder page (/containers/{c}/folders/{f} and /admin/containers/{c}/folders/{f}): profile
 * management and uploads for admin, doctor and nurse; the Patient Files list for everyone, each
 * file's Versions panel (restoring a version: admin, doctor, nurse); deletion to the trash and
 * the folder's Trash for admins. The server enforces all of it; this only hides what a role cannot do.
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { NOTIFICATION_MS } from '../../../components/Notifications';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { ErrorState, PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { Role, StoredFile } from '../../../lib/api/types';
import { useSession } from '../../../lib/sessionContext';
import { profileVersion, UPLOADERS } from '../api/prefetch';
import { useFiles } from '../api/get-files';
import { useTrash } from '../api/trash';
import { DeleteFileDialog } from '../components/DeleteFileDialog';
import { FileList } from '../components/FileList';
import { ProfileImageCard } from '../components/ProfileImage';
import { TrashSection } from '../components/TrashSection';
import { UploadForm } from '../components/UploadForm';
import { VersionsDialog } from '../components/VersionsDialog';
import { FILE_MSG } from '../messages';
import { useOpenFile } from '../useOpenFile';

interface Outcome {
  id: number;
  kind: 'success' | 'error';
  message: string;
}

/** `children` (the admin's access history) come after the folder's own sections, once the files
 * have loaded: rendered earlier, they would be pushed down the screen as the folder arrives. */
export default function FolderPage({ children }: { children?: ReactNode }) {
  const params = useParams();
  const container = params.containerName ?? '';
  const folder = params.folderName ?? '';
  return (
    <Folder key={`${container}\u0000${folder}`} container={container} folder={folder}>
      {children}
    </Folder>
  );
}

function Folder({ container, folder, children }: { container: string; folder: string; children?: ReactNode }) {
  const { user } = useSession();
  const role = user?.role as Role | undefined;
  const isAdmin = role === 'admin';
  const canUpload = role !== undefined && UPLOADERS.includes(role);
  const files = useFiles(container, folder);
  const { open, ios } = useOpenFile(container, folder);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [toDelete, setToDelete] = useState<StoredFile | null>(null);
  const [versionsOf, setVersionsOf] = useState<StoredFile | null>(null);
  const trash = useTrash(container, folder, isAdmin);

  // One banner at a time: a new outcome replaces the last. Successes go after 5 seconds like
  // other notifications; an error stays until closed.
  const report = (kind: Outcome['kind'], message: string) => setOutcome({ id: Date.now() + Math.random(), kind, message });
  const dismiss = (id: number) => setOutcome((current) => (current?.id === id ? null : current));
  useEffect(() => {
    if (!outcome || outcome.kind === 'error') return;
    const timer = window.setTimeout(() => dismiss(outcome.id), NOTIFICATION_MS);
    return () => window.clearTimeout(timer);
  }, [outcome]);

  const blobs = useMemo(() => files.data?.blobs ?? [], [files.data]);
  const names = useMemo(() => new Set(blobs.map((b) => b.name)), [blobs]);
  const back = isAdmin ? `/admin/containers/${encodeURIComponent(container)}` : `/containers/${encodeURIComponent(container)}`;

  return (
    <>
      <p className="back-link">
        <Link to={back}>← Back to {container}</Link>
      </p>
      <PageHeader title={folder}>
        <span className="muted">Container: {container}</span>
      </PageHeader>
      <div aria-live="polite">
        {outcome ? (
          <Banner key={outcome.id} kind={outcome.kind} onClose={() => dismiss(outcome.id)}>
            {outcome.message}
          </Banner>
        ) : null}
      </div>
      <QueryBoundary
        query={files}
        messages={FILE_MSG}
        notFound={
          // Like the container page: what is not there for this user, and the way back.
          <ErrorState message={isAdmin ? errorMessage(files.error, FILE_MSG.notFound) : FILE_MSG.notAssigned}>
            <p className="state-links">
              <Link to={back}>Back to {container}</Link>
              <Link to="/dashboard">Back to Dashboard</Link>
            </p>
          </ErrorState>
        }
      >
        {() => (
          <>
            {canUpload ? (
              <div className="folder-tools">
                <ProfileImageCard container={container} folder={folder} version={profileVersion(files.data)} onReport={report} />
                <UploadForm container={container} folder={folder} existingNames={names} onReport={report} />
              </div>
            ) : null}
            <section className="panel" aria-labelledby="files-heading">
              <h2 id="files-heading">Patient Files</h2>
              {ios ? <Banner kind="info">{FILE_MSG.iosNotice}</Banner> : null}
              <FileList
                files={blobs}
                ios={ios}
                onOpen={open}
                onDelete={isAdmin ? setToDelete : undefined}
                onVersions={setVersionsOf}
              />
            </section>
            {isAdmin && !trash.isError ? (
              <TrashSection container={container} folder={folder} trash={trash.data} onReport={report} />
            ) : null}
            {children}
          </>
        )}
      </QueryBoundary>
      {toDelete ? (
        <DeleteFileDialog
          container={container}
          folder={folder}
          file={toDelete}
          trashDays={trash.data?.trashDays ?? null}
          onDone={(message) => {
            setToDelete(null);
            if (message) report('success', message);
          }}
        />
      ) : null}
      {versionsOf ? (
        <VersionsDialog
          container={container}
          folder={folder}
          file={versionsOf}
          canRestore={canUpload}
          onOpen={open}
          onDone={(message) => {
            setVersionsOf(null);
            if (message) report('success', message);
          }}
        />
      ) : null}
    </>
  );
}
