/**
 * /my-assignments: summary cards and file type statistics over everything assigned to me (the
 * server counts them), then my folders with their file counts, searched and paged on the server.
 */
import { Link } from 'react-router-dom';
import { FolderIdentity } from '../../../components/PatientIdentity';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { Stat } from '../../../components/Stat';
import { EmptyState, PageHeader } from '../../../components/States';
import type { FolderStats, MyStatsResponse } from '../../../lib/api/types';
import { combineQueries } from '../../../lib/combineQueries';
import { fileTypeStats, formatPercent } from '../../../lib/fileStats';
import { plural } from '../../../lib/format';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { useMyFolders } from '../api/get-my-folders';
import { useMyStats } from '../api/get-my-stats';
import { folderHref, MyFolderList } from '../components/MyFolderList';

export const MSG = {
  loading: 'Loading your assignments…',
  loadFailed: 'Failed to load assignments data',
  empty: "You don't have any assigned containers yet.",
  noFiles: 'No files in this folder',
  noFileTypes: 'No files in your assigned folders yet.',
  noFolders: 'No folders assigned in your containers yet.',
  noMatch: 'No folders match your search.',
} as const;

export default function MyAssignmentsPage() {
  const stats = useMyStats();
  const search = usePagedSearch();
  const folders = useMyFolders(search.q, search.page);
  // Refresh reloads the statistics and the page on screen together.
  const both = combineQueries(stats, folders);
  return (
    <>
      <PageHeader title="My Assignments Dashboard">
        <RefreshControl query={both} />
      </PageHeader>
      <QueryBoundary query={stats} messages={MSG} isEmpty={(data) => data.summary.containerCount === 0}>
        {(data) => (
          <>
            <Summary stats={data} />
            <section className="panel" aria-labelledby="my-folders">
              <h2 id="my-folders">Assigned Containers</h2>
              <MyFolderList
                id="my-folders"
                label="Search folders"
                search={search}
                query={folders}
                messages={{ ...MSG, empty: MSG.noFolders }}
              >
                {(folder) => <FolderRow folder={folder} />}
              </MyFolderList>
            </section>
          </>
        )}
      </QueryBoundary>
    </>
  );
}

function Summary({ stats }: { stats: MyStatsResponse }) {
  const summary = stats.summary;
  const types = fileTypeStats(summary.fileTypes, summary.totalFiles);
  return (
    <>
      <section className="cards" aria-label="Summary">
        <Stat label="Assigned Containers" value={summary.containerCount} />
        <Stat label="Patient Folders" value={summary.folderCount} />
        <Stat label="Total Files" value={summary.totalFiles} />
      </section>
      <section className="panel" aria-labelledby="file-types">
        <h2 id="file-types">File Type Statistics</h2>
        {types.length === 0 ? (
          <EmptyState>{MSG.noFileTypes}</EmptyState>
        ) : (
          <ul className="type-grid">
            {types.map((t) => (
              <li key={t.extension} className="type-card">
                <span className="type-ext">{t.extension}</span>
                <span className="type-count">{plural(t.count, 'file')}</span>
                <span className="muted small">{formatPercent(t.percent)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** One folder: its patient's name first, then the date of birth, the record number and the code
 * (its code alone when no patient name is known), its file counts and View Files. */
function FolderRow({ folder }: { folder: FolderStats }) {
  const types = fileTypeStats(folder.fileTypes, folder.totalFiles);
  const patient = folder.patient?.name;
  return (
    <li className="folder-stat" aria-label={patient ? `${patient}, folder ${folder.folderName}` : `Folder ${folder.folderName}`}>
      <div className="assignment-row">
        <span className="folder-name">
          <FolderIdentity folder={folder.folderName} patient={folder.patient} />
        </span>
        <span className="muted">{plural(folder.totalFiles, 'file')}</span>
        <Link
          className="btn btn-small"
          to={folderHref(folder.containerName, folder.folderName)}
          aria-label={`View Files in ${patient ? `${patient}, folder ${folder.folderName}` : folder.folderName}`}
        >
          View Files
        </Link>
      </div>
      {types.length === 0 ? (
        <p className="muted small">{MSG.noFiles}</p>
      ) : (
        <ul className="chips-inline">
          {types.map((t) => (
            <li key={t.extension} className="chip">
              {t.extension}: {t.count}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
