/** /my-assignments: summary cards, file type statistics and every assigned folder with its counts. */
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { Stat } from '../../../components/Stat';
import { EmptyState, PageHeader } from '../../../components/States';
import type { MyAssignmentsResponse, MyStatsResponse } from '../../../lib/api/types';
import { combineQueries } from '../../../lib/combineQueries';
import { fileTypeStats, formatPercent } from '../../../lib/fileStats';
import { plural } from '../../../lib/format';
import { naturalSort } from '../../../lib/sort';
import { useMyAssignments } from '../api/get-my-assignments';
import { useMyStats } from '../api/get-my-stats';

export const MSG = {
  loading: 'Loading your assignments…',
  loadFailed: 'Failed to load assignments data',
  empty: "You don't have any assigned containers yet.",
  noFiles: 'No files in this folder',
  noFileTypes: 'No files in your assigned folders yet.',
} as const;

type FolderStat = MyStatsResponse['folders'][number];
const statKey = (container: string, folder: string) => JSON.stringify([container, folder]);

export default function MyAssignmentsPage() {
  const query = combineQueries(useMyAssignments(), useMyStats());
  return (
    <>
      <PageHeader title="My Assignments Dashboard">
        <RefreshControl query={query} />
      </PageHeader>
      <QueryBoundary query={query} messages={MSG} isEmpty={([mine]) => mine.assignments.length === 0}>
        {([mine, stats]) => <Assignments assignments={mine.assignments} stats={stats} />}
      </QueryBoundary>
    </>
  );
}

function Assignments({ assignments, stats }: { assignments: MyAssignmentsResponse['assignments']; stats: MyStatsResponse }) {
  const summary = stats.summary;
  const byFolder = new Map<string, FolderStat>(stats.folders.map((f) => [statKey(f.containerName, f.folderName), f]));
  const types = fileTypeStats(summary.fileTypes, summary.totalFiles);
  const containers = naturalSort(assignments, (a) => a.containerName);
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
      <section className="panel" aria-labelledby="my-containers">
        <h2 id="my-containers">Assigned Containers</h2>
        <ul className="assignment-tree">
          {containers.map((a) => (
            <li key={a.id}>
              <div className="assignment-row">
                <Link to={`/containers/${encodeURIComponent(a.containerName)}`}>
                  <strong>{a.containerName}</strong>
                </Link>
                <span className="muted">{plural(a.folders.length, 'folder')}</span>
              </div>
              {a.folders.length > 0 ? (
                <ul className="folder-stats">
                  {naturalSort(a.folders, (f) => f.folderName).map((f) => (
                    <FolderRow
                      key={f.id}
                      container={a.containerName}
                      folder={f.folderName}
                      stat={byFolder.get(statKey(a.containerName, f.folderName))}
                    />
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

function FolderRow({ container, folder, stat }: { container: string; folder: string; stat: FolderStat | undefined }) {
  const total = stat?.totalFiles ?? 0;
  const types = fileTypeStats(stat?.fileTypes ?? {}, total);
  return (
    <li className="folder-stat" aria-label={`Folder ${folder}`}>
      <div className="assignment-row">
        <span className="folder-name">{folder}</span>
        <span className="muted">{plural(total, 'file')}</span>
        <Link
          className="btn btn-small"
          to={`/containers/${encodeURIComponent(container)}/folders/${encodeURIComponent(folder)}`}
          aria-label={`View Files in ${folder}`}
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
