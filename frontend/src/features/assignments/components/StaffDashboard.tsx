/** Staff dashboard: welcome, counts, role, a patient folder search across my containers, and the assigned containers with folder counts. */
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { Stat } from '../../../components/Stat';
import { EmptyState, PageHeader } from '../../../components/States';
import { plural, roleLabel } from '../../../lib/format';
import { naturalSort } from '../../../lib/sort';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { useMyAssignments } from '../api/get-my-assignments';
import { useMyFolders } from '../api/get-my-folders';
import { FinderResult, MyFolderList } from './MyFolderList';

export const MSG = {
  loading: 'Loading your assignments…',
  loadFailed: 'Failed to load assignments',
  empty: "You don't have any assigned containers yet.",
  searching: 'Searching your folders…',
  searchFailed: 'Failed to load folders',
  noMatch: 'No folders match your search.',
} as const;

export function StaffDashboard({ name, role }: { name: string; role: string }) {
  const query = useMyAssignments();
  return (
    <>
      <PageHeader title={`Welcome, ${name}`}>
        <RefreshControl query={query} />
      </PageHeader>
      <QueryBoundary query={query} messages={MSG}>
        {(data) => {
          const assignments = naturalSort(data.assignments, (a) => a.containerName);
          const folderCount = assignments.reduce((sum, a) => sum + a.folders.length, 0);
          return (
            <>
              <section className="cards" aria-label="Summary">
                <Stat label="Containers" value={assignments.length} />
                <Stat label="Patient Folders" value={folderCount} />
                <Stat label="Role" value={roleLabel(role)} />
              </section>
              {assignments.length > 0 ? <FindPatient /> : null}
              <section className="panel" aria-labelledby="assigned-containers">
                <h2 id="assigned-containers">Assigned Containers</h2>
                {assignments.length === 0 ? (
                  <EmptyState>{MSG.empty}</EmptyState>
                ) : (
                  <ul className="link-list">
                    {assignments.map((a) => (
                      <li key={a.id}>
                        <Link to={`/containers/${encodeURIComponent(a.containerName)}`}>{a.containerName}</Link>
                        <span className="muted">{plural(a.folders.length, 'folder')}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            </>
          );
        }}
      </QueryBoundary>
    </>
  );
}

/** A patient folder by name, in every assigned container: one server request per settled search. */
function FindPatient() {
  const search = usePagedSearch();
  const query = useMyFolders(search.q, search.page, search.q !== '');
  return (
    <section className="panel" aria-labelledby="find-patient" role="search">
      <h2 id="find-patient">Find a Patient Folder</h2>
      <MyFolderList
        id="find-patient"
        label="Search patient folders"
        search={search}
        query={query}
        idle={search.q === ''}
        messages={{ loading: MSG.searching, loadFailed: MSG.searchFailed, empty: MSG.noMatch, noMatch: MSG.noMatch }}
      >
        {(folder) => (
          <li className="folder-stat">
            <div className="assignment-row">
              <FinderResult folder={folder} />
              <span className="muted">{plural(folder.totalFiles, 'file')}</span>
            </div>
          </li>
        )}
      </MyFolderList>
    </section>
  );
}
