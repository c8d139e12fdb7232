/**
 * The folder page (/containers/{c}/folders/{f} and /admin/containers/{c}/folders/{f}): profile
 * management and uploads for admin, doctor and nurse; the Patient Files list for everyone, each
 * file's Versions panel (restoring a version: admin, doctor, nurse); deletion to the trash and
 * the folder's Trash for admins. The server enforces all of it; this only hides what a role cannot do.
 * Issue 50: the files sorted as the reader chose (fileSort.ts), those added since the reader's
 * previous visit marked New (the visit is recorded as the page opens), a notice when the
 * patient's details change, and "Skip to files" first. A search hit opens the viewer here at
 * `?view=<name>&page=<n>&q=<words>` (the viewer reads page and q).
 */
import { Suspense, useCallback, useDeferredValue, useEffect, useMemo, useState, type MouseEvent, type ReactNode } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { NOTIFICATION_MS } from '../../../components/Notifications';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { ErrorState, PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { Role, StoredFile } from '../../../lib/api/types';
import { isTouchDevice } from '../../../lib/device';
import { searchUrl } from '../../../lib/searchQuery';
import { UPLOAD_LIMIT_MB } from '../../../lib/files';
import { mayUseIntake } from '../../../lib/session';
import { useSession } from '../../../lib/sessionContext';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/useMediaQuery';
import { profileVersion, UPLOADERS } from '../api/prefetch';
import { useFiles } from '../api/get-files';
import { useTrash } from '../api/trash';
import { usePreviousVisit } from '../api/visit';
import { DeleteFileDialog } from '../components/DeleteFileDialog';
import { CoverSheetButton } from '../components/CoverSheetButton';
import { FileList, FileSortSelect, type FileActions } from '../components/FileList';
import { FolderSearch } from '../components/FolderSearch';
import { PatientBanner, PatientChangeNotice } from '../components/PatientBanner';
import { ProfileImageCard } from '../components/ProfileImage';
import { TrashSection } from '../components/TrashSection';
import { UploadForm } from '../components/UploadForm';
import { VersionsDialog } from '../components/VersionsDialog';
import { VIEWER } from '../components/viewer/lazyViewer';
import { sortFiles, useFileSort } from '../fileSort';
import { FILE_MSG, VIEWER_MSG } from '../messages';
import { useOpenFile } from '../useOpenFile';
import { useReportingDialog } from '../useReportingDialog';

// The viewer is code a folder page needs only once a file is opened: its own chunk, loaded then.
const FileViewer = VIEWER.Component;

/** The search parameter naming the file the viewer shows: the back button closes the viewer,
 * a reload opens it again. */
const VIEW_PARAM = 'view';
/** With it (a search hit): the page to show first and the words to mark. Another file shown drops
 * the page; closing the viewer drops both. */
const PAGE_PARAM = 'page';
const WORDS_PARAM = 'q';

/** History state of an entry the folder page pushed to open the viewer: closing goes back to it. */
interface ViewerState {
  viewerOpened?: boolean;
}

/** The file the viewer shows (from the URL), and opening, switching and closing it. */
function useViewerParam() {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const viewing = params.get(VIEW_PARAM);
  const pushed = Boolean((location.state as ViewerState | null)?.viewerOpened);
  const show = useCallback(
    (name: string, replace: boolean) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (next.get(VIEW_PARAM) !== name) next.delete(PAGE_PARAM);
          next.set(VIEW_PARAM, name);
          return next;
        },
        { replace, state: { viewerOpened: replace ? pushed : true } satisfies ViewerState },
      ),
    [setParams, pushed],
  );
  const close = useCallback(() => {
    // Opened here: going back closes it, so that Back afterwards leaves the folder as expected.
    if (pushed) {
      navigate(-1);
      return;
    }
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const param of [VIEW_PARAM, PAGE_PARAM, WORDS_PARAM]) next.delete(param);
        return next;
      },
      { replace: true },
    );
  }, [navigate, pushed, setParams]);
  // Stable while the address is: the file list's rows are memoised on it (the folder's FileActions).
  const openViewer = useCallback((name: string) => show(name, false), [show]);
  const switchTo = useCallback((name: string) => show(name, true), [show]);
  return { viewing, openViewer, switchTo, close };
}

const FOLDER_MSG = {
  skipToFiles: 'Skip to files',
} as const;

/** The folder's sections before their first deferred render: shown as loading. */
const DRAWING = { isPending: true, isError: false, error: null, data: undefined, refetch: () => undefined };

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
  // A cover sheet: for those who may upload here and the intake's holders (the server's rule).
  const canPrintCover = canUpload || mayUseIntake(user);
  const files = useFiles(container, folder);
  const { open, download, ios } = useOpenFile(container, folder);
  const { viewing, openViewer, switchTo, close } = useViewerParam();
  // The viewer renders in a background render of its own (React yields to the browser every few
  // milliseconds there): rendered with the folder page in one task, a first load at ?view= blocked
  // the main thread 100-150 ms longer on a phone (Lighthouse's total blocking time).
  const shownViewer = useDeferredValue(viewing, null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const trash = useTrash(container, folder, isAdmin);
  const touch = useMemo(() => isTouchDevice(), []);
  // On a phone the files come first; upload and profile management are one tap away.
  const phone = useMediaQuery(PHONE_QUERY);
  const [tool, setTool] = useState<'upload' | 'profile' | null>(null);
  const [sort, setSort] = useFileSort(user?.userId ?? null);
  const previousVisit = usePreviousVisit(container, folder);
  const toggle = (which: 'upload' | 'profile') => setTool((open) => (open === which ? null : which));

  // One banner at a time: a new outcome replaces the last. Successes go after 5 seconds like
  // other notifications; an error stays until closed.
  const report = (kind: Outcome['kind'], message: string) => setOutcome({ id: Date.now() + Math.random(), kind, message });
  const deleting = useReportingDialog<StoredFile>(report);
  const versions = useReportingDialog<StoredFile>(report);
  // What every file's row offers, in one object the same from render to render while what it
  // holds is (the rows are memoised on it).
  const actions = useMemo<FileActions>(
    () => ({ open: openViewer, download, versions: versions.open, remove: isAdmin ? deleting.open : undefined }),
    [openViewer, download, versions.open, isAdmin, deleting.open],
  );
  const dismiss = (id: number) => setOutcome((current) => (current?.id === id ? null : current));
  useEffect(() => {
    if (!outcome || outcome.kind === 'error') return;
    const timer = window.setTimeout(() => dismiss(outcome.id), NOTIFICATION_MS);
    return () => window.clearTimeout(timer);
  }, [outcome]);

  // A first load finds the listing fetched already (preloadScreens): drawing the files with the
  // header would paint nothing until all of it is drawn, a long task on a phone. The header and
  // the banner are drawn first, the folder's sections right after, in a render React can
  // interrupt (until then they show as loading, as on any other load).
  const drawn = useDeferredValue(true, false);
  const blobs = useMemo(() => sortFiles(files.data?.blobs ?? [], sort), [files.data, sort]);
  const names = useMemo(() => new Set(blobs.map((b) => b.name)), [blobs]);
  const back = isAdmin ? `/admin/containers/${encodeURIComponent(container)}` : `/containers/${encodeURIComponent(container)}`;

  // Past the banner, the tools and the search: to the first file (or the list's heading).
  const skipToFiles = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    const first = document.querySelector<HTMLElement>('.file-list .file-open') ?? document.getElementById('files-heading');
    first?.focus();
  };

  return (
    <>
      <a className="skip-link" href="#files-heading" onClick={skipToFiles}>
        {FOLDER_MSG.skipToFiles}
      </a>
      <p className="back-link">
        <Link to={back}>← Back to {container}</Link>
      </p>
      <PageHeader title={folder}>
        <span className="muted">Container: {container}</span>
        {canPrintCover ? <CoverSheetButton container={container} folder={folder} onReport={report} /> : null}
      </PageHeader>
      <PatientBanner container={container} folder={folder} />
      <PatientChangeNotice container={container} folder={folder} overViewer={viewing !== null} />
      <div aria-live="polite">
        {outcome ? (
          <Banner key={outcome.id} kind={outcome.kind} onClose={() => dismiss(outcome.id)}>
            {outcome.message}
          </Banner>
        ) : null}
      </div>
      <QueryBoundary
        query={drawn ? files : DRAWING}
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
            {phone ? (
              // On a phone the files come first: the folder's tools are one tap away.
              <div className="folder-toolbar">
                {canUpload ? (
                  <>
                    <button type="button" className="btn" aria-expanded={tool === 'upload'} aria-controls="folder-upload" onClick={() => toggle('upload')}>
                      Upload files
                    </button>
                    <button type="button" className="btn" aria-expanded={tool === 'profile'} aria-controls="folder-profile" onClick={() => toggle('profile')}>
                      Patient profile
                    </button>
                  </>
                ) : null}
                <Link className="btn" to={searchUrl({ q: '', container, folder })}>
                  {FILE_MSG.searchFolder}
                </Link>
              </div>
            ) : null}
            {canUpload ? (
              // Hidden, not unmounted, on a phone: an upload under way goes on when its form is closed.
              <div className="folder-tools">
                <div id="folder-profile" hidden={phone && tool !== 'profile'}>
                  <ProfileImageCard container={container} folder={folder} version={profileVersion(files.data)} onReport={report} />
                </div>
                <div id="folder-upload" hidden={phone && tool !== 'upload'}>
                  <UploadForm
                    container={container}
                    folder={folder}
                    existingNames={names}
                    maxBytes={files.data?.maxUploadBytes ?? UPLOAD_LIMIT_MB * 1024 * 1024}
                    onReport={report}
                  />
                </div>
              </div>
            ) : null}
            <section className="panel" aria-labelledby="files-heading">
              <div className="section-header">
                <h2 id="files-heading" tabIndex={-1}>
                  Patient Files
                </h2>
                {blobs.length > 1 ? <FileSortSelect sort={sort} onSort={setSort} /> : null}
                {phone ? null : <FolderSearch container={container} folder={folder} />}
              </div>
              {ios ? <Banner kind="info">{FILE_MSG.iosNotice}</Banner> : null}
              <FileList
                files={blobs}
                tap={ios || touch}
                actions={actions}
                reveal={viewing}
                newSince={previousVisit}
              />
            </section>
            {isAdmin && !trash.isError ? (
              <TrashSection container={container} folder={folder} trash={trash.data} onReport={report} />
            ) : null}
            {children}
          </>
        )}
      </QueryBoundary>
      {deleting.subject ? (
        <DeleteFileDialog
          container={container}
          folder={folder}
          file={deleting.subject}
          trashDays={trash.data?.trashDays ?? null}
          onDone={deleting.onDone}
        />
      ) : null}
      {shownViewer !== null && files.isSuccess ? (
        <Suspense
          fallback={
            <div className="viewer-backdrop">
              <p className="viewer-note" role="status">
                {VIEWER_MSG.loading}
              </p>
            </div>
          }
        >
          <FileViewer
            container={container}
            folder={folder}
            files={blobs}
            name={shownViewer}
            onNavigate={switchTo}
            onClose={close}
            onOpenOriginal={open}
            onDownloadOriginal={download}
            ios={ios}
          />
        </Suspense>
      ) : null}
      {versions.subject ? (
        <VersionsDialog
          container={container}
          folder={folder}
          file={versions.subject}
          canRestore={canUpload}
          onOpen={open}
          onDone={versions.onDone}
        />
      ) : null}
    </>
  );
}
