/** /users/assign/{userId}: current assignments with Unassign, container picker, folder multi-select. */
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { ConfirmDialog } from '../../../components/Dialog';
import { useNotify } from '../../../components/Notifications';
import { EmptyState, ErrorState, Loading, PageHeader, RoleBadge } from '../../../components/States';
import { ApiError, errorMessage } from '../../../lib/api/client';
import type { ContainerAssignment, FolderAssignment, User } from '../../../lib/api/types';
import { plural } from '../../../lib/format';
import { filterBySearch } from '../../../lib/search';
import { naturalSort } from '../../../lib/sort';
import { useAssignResources } from '../../assignments/api/assign';
import { useContainers } from '../../assignments/api/get-containers';
import { useFolders } from '../../assignments/api/get-folders';
import { useUserAssignments } from '../../assignments/api/get-user-assignments';
import { useUnassign } from '../../assignments/api/unassign';
import { useUser } from '../api/get-user';

export const MSG = {
  userNotFound: 'User not found',
  loadUserFailed: 'Failed to load user data',
  loadAssignmentsFailed: 'Failed to load assignments',
  loadContainersFailed: 'Failed to load containers',
  loadFoldersFailed: (c: string) => `Failed to load folders for ${c}`,
  selectContainer: 'Please select a container',
  allAssigned: 'All available folders have already been assigned to this user.',
  noFolders: 'No folders available in this container.',
  noMatch: 'No folders match your search.',
  noContainersMatch: 'No containers match your search.',
  noContainers: 'No containers available.',
  noAssignments: 'No containers or folders are assigned to this user yet.',
  assigned: 'Resources assigned successfully',
  assignedMore: 'Additional folders assigned successfully',
  assignFailed: 'Failed to assign resources',
  unassignFailed: 'Failed to unassign resource',
  containerUnassigned: 'Container unassigned successfully',
  folderUnassigned: 'Folder unassigned successfully',
} as const;

export default function AssignPage() {
  const { userId } = useParams();
  const id = Number(userId);
  const valid = Number.isInteger(id) && id > 0;
  const userQuery = useUser(id, valid);

  if (!valid || (userQuery.isError && userQuery.error instanceof ApiError && userQuery.error.status === 404)) {
    return <UserNotFound />;
  }
  if (userQuery.isPending) return <Loading label="Loading user…" />;
  if (userQuery.isError) {
    return (
      <>
        <PageHeader title="Manage Assignments" />
        <ErrorState message={errorMessage(userQuery.error, MSG.loadUserFailed)} onRetry={() => void userQuery.refetch()} />
      </>
    );
  }
  return <AssignScreen key={id} user={userQuery.data.user} />;
}

function UserNotFound() {
  return (
    <>
      <PageHeader title="Manage Assignments" />
      <div className="state state-error" role="alert">
        <p>{MSG.userNotFound}</p>
        <Link to="/users">Back to Users</Link>
      </div>
    </>
  );
}

type Pending =
  | { type: 'container'; assignment: ContainerAssignment; folderCount: number }
  | { type: 'folder'; assignment: FolderAssignment };

function AssignScreen({ user }: { user: User }) {
  const assignments = useUserAssignments(user.id);
  const notify = useNotify();
  const [pending, setPending] = useState<Pending | null>(null);

  const containerAssignments = naturalSort(assignments.data?.containerAssignments ?? [], (a) => a.containerName);
  const folderAssignments = assignments.data?.folderAssignments ?? [];
  const foldersOf = (container: string) =>
    naturalSort(folderAssignments.filter((f) => f.containerName === container), (f) => f.folderName);

  return (
    <>
      <PageHeader title="Manage Assignments">
        <Link className="btn" to="/users">
          Back to Users
        </Link>
      </PageHeader>
      <div className="split">
        <div className="split-main">
          <section className="panel" aria-labelledby="user-details">
            <h2 id="user-details">User Details</h2>
            <dl className="details">
              <dt>Name</dt>
              <dd>{user.name}</dd>
              <dt>Username</dt>
              <dd>{user.username}</dd>
              <dt>Role</dt>
              <dd>
                <RoleBadge role={user.role} />
              </dd>
            </dl>
          </section>
          <section className="panel" aria-labelledby="current-assignments">
            <h2 id="current-assignments">Current Assignments</h2>
            {assignments.isPending ? (
              <Loading label="Loading assignments…" />
            ) : assignments.isError ? (
              <ErrorState message={errorMessage(assignments.error, MSG.loadAssignmentsFailed)} onRetry={() => void assignments.refetch()} />
            ) : containerAssignments.length === 0 ? (
              <EmptyState>{MSG.noAssignments}</EmptyState>
            ) : (
              <ul className="assignment-tree">
                {containerAssignments.map((c) => {
                  const folders = foldersOf(c.containerName);
                  return (
                    <li key={c.id}>
                      <div className="assignment-row">
                        <strong>{c.containerName}</strong>
                        <span className="muted">{plural(folders.length, 'folder')}</span>
                        <button
                          type="button"
                          className="btn btn-small btn-danger-outline"
                          aria-label={`Unassign container ${c.containerName}`}
                          onClick={() => setPending({ type: 'container', assignment: c, folderCount: folders.length })}
                        >
                          Unassign
                        </button>
                      </div>
                      {folders.length > 0 ? (
                        <ul>
                          {folders.map((f) => (
                            <li key={f.id} className="assignment-row">
                              <span>{f.folderName}</span>
                              <button
                                type="button"
                                className="btn btn-small btn-danger-outline"
                                aria-label={`Unassign folder ${f.folderName}`}
                                onClick={() => setPending({ type: 'folder', assignment: f })}
                              >
                                Unassign
                              </button>
                            </li>
                          ))}
                        </ul>
                      ) : null}
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
        </div>
        <AssignForm
          user={user}
          assignedContainers={containerAssignments.map((c) => c.containerName)}
          assignedFolders={folderAssignments}
          onAssigned={(message) => notify('success', message)}
        />
      </div>
      {pending ? <UnassignDialog user={user} pending={pending} onDone={() => setPending(null)} /> : null}
    </>
  );
}

function UnassignDialog({ user, pending, onDone }: { user: User; pending: Pending; onDone: () => void }) {
  const unassign = useUnassign();
  const notify = useNotify();
  const isContainer = pending.type === 'container';
  const name = isContainer ? pending.assignment.containerName : (pending.assignment as FolderAssignment).folderName;
  return (
    <ConfirmDialog
      title={isContainer ? 'Unassign container' : 'Unassign folder'}
      confirmLabel="Unassign"
      busyLabel="Unassigning…"
      danger
      busy={unassign.isPending}
      error={unassign.isError ? errorMessage(unassign.error, MSG.unassignFailed) : null}
      onCancel={onDone}
      onConfirm={() =>
        unassign.mutate(
          { id: pending.assignment.id, type: pending.type },
          {
            onSuccess: () => {
              notify('success', isContainer ? MSG.containerUnassigned : MSG.folderUnassigned);
              onDone();
            },
          },
        )
      }
    >
      <p>
        Unassign {isContainer ? 'container' : 'folder'} <strong>{name}</strong> from {user.name}?
      </p>
      {pending.type === 'container' && pending.folderCount > 0 ? (
        <p className="warning-text">Its {plural(pending.folderCount, 'folder assignment')} will also be removed.</p>
      ) : null}
      {pending.type === 'folder' ? <p className="muted">Container: {pending.assignment.containerName}</p> : null}
    </ConfirmDialog>
  );
}

interface AssignFormProps {
  user: User;
  assignedContainers: string[];
  assignedFolders: FolderAssignment[];
  onAssigned: (message: string) => void;
}

function AssignForm({ user, assignedContainers, assignedFolders, onAssigned }: AssignFormProps) {
  const containers = useContainers();
  const [containerSearch, setContainerSearch] = useState('');
  const [container, setContainer] = useState<string | null>(null);
  const [folderSearch, setFolderSearch] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const folders = useFolders(container);
  const assign = useAssignResources();

  const mode: 'new' | 'update' = container && assignedContainers.includes(container) ? 'update' : 'new';
  const chips = useMemo(
    () => naturalSort(assignedFolders.filter((f) => f.containerName === container).map((f) => f.folderName)),
    [assignedFolders, container],
  );
  const allFolders = useMemo(() => naturalSort(folders.data?.folders ?? []), [folders.data]);
  const available = useMemo(() => allFolders.filter((f) => !chips.includes(f)), [allFolders, chips]);
  const visible = useMemo(() => filterBySearch(available, folderSearch, (f) => f), [available, folderSearch]);
  const visibleContainers = useMemo(
    () => filterBySearch(naturalSort(containers.data?.containers ?? []), containerSearch, (c) => c),
    [containers.data, containerSearch],
  );

  const chooseContainer = (name: string) => {
    setContainer(name);
    setSelected([]);
    setFolderSearch('');
    setError(null);
  };

  const onSelectChange = (options: HTMLOptionsCollection | HTMLCollectionOf<HTMLOptionElement>) => {
    const chosenVisible = Array.from(options).filter((o) => o.selected).map((o) => o.value);
    // Keep selections hidden by the current search; replace those among the visible options.
    setSelected((current) => naturalSort([...current.filter((f) => !visible.includes(f)), ...chosenVisible]));
  };

  const foldersListed = Boolean(container) && folders.isSuccess && available.length > 0;
  const disabled =
    assign.isPending || (foldersListed && selected.length === 0) || (mode === 'update' && selected.length === 0);

  const submit = () => {
    if (!container) {
      setError(MSG.selectContainer);
      return;
    }
    setError(null);
    assign.mutate(
      { mode, container, userId: user.id, folderNames: selected },
      {
        onSuccess: () => {
          onAssigned(mode === 'new' ? MSG.assigned : MSG.assignedMore);
          setSelected([]);
          setFolderSearch('');
        },
        onError: (err) => setError(errorMessage(err, MSG.assignFailed)),
      },
    );
  };

  let folderArea;
  if (!container) folderArea = <p className="muted">Choose a container to see its folders.</p>;
  else if (folders.isPending) folderArea = <Loading label="Loading folders…" />;
  else if (folders.isError) folderArea = <ErrorState message={errorMessage(folders.error, MSG.loadFoldersFailed(container))} onRetry={() => void folders.refetch()} />;
  else if (allFolders.length === 0) folderArea = <EmptyState>{MSG.noFolders}</EmptyState>;
  else if (available.length === 0) folderArea = <EmptyState>{MSG.allAssigned}</EmptyState>;
  else
    folderArea = (
      <>
        <div className="field">
          <label htmlFor="folder-search">Search folders</label>
          <input id="folder-search" type="search" value={folderSearch} onChange={(e) => setFolderSearch(e.target.value)} />
        </div>
        {visible.length === 0 ? (
          <EmptyState>{MSG.noMatch}</EmptyState>
        ) : (
          <div className="field">
            <label htmlFor="folder-select">Folders</label>
            <select
              id="folder-select"
              multiple
              size={Math.min(10, Math.max(4, visible.length))}
              value={selected.filter((f) => visible.includes(f))}
              onChange={(e) => onSelectChange(e.target.options)}
              aria-describedby="folder-select-hint"
            >
              {visible.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
            <span id="folder-select-hint" className="hint">
              Hold Ctrl (Cmd on a Mac) to select several folders.
            </span>
          </div>
        )}
        <p className="selected-count" aria-live="polite">
          {plural(selected.length, 'folder')} selected
        </p>
      </>
    );

  return (
    <section className="panel split-side" aria-labelledby="assign-resources">
      <h2 id="assign-resources">Assign Resources</h2>
      {error ? (
        <Banner kind="error" onClose={() => setError(null)}>
          {error}
        </Banner>
      ) : null}
      <div className="field">
        <label htmlFor="container-search">Search containers</label>
        <input id="container-search" type="search" value={containerSearch} onChange={(e) => setContainerSearch(e.target.value)} />
      </div>
      {containers.isPending ? (
        <Loading label="Loading containers…" />
      ) : containers.isError ? (
        <ErrorState message={errorMessage(containers.error, MSG.loadContainersFailed)} onRetry={() => void containers.refetch()} />
      ) : visibleContainers.length === 0 ? (
        <EmptyState>{containerSearch.trim() ? MSG.noContainersMatch : MSG.noContainers}</EmptyState>
      ) : (
        <fieldset className="picker">
          <legend>Container</legend>
          {visibleContainers.map((c) => (
            <label key={c} className={c === container ? 'picker-item picker-item-selected' : 'picker-item'}>
              <input type="radio" name="container" value={c} checked={c === container} onChange={() => chooseContainer(c)} />
              <span>{c}</span>
              {assignedContainers.includes(c) ? <span className="badge badge-muted">Already Assigned</span> : null}
            </label>
          ))}
        </fieldset>
      )}
      {container && chips.length > 0 ? (
        <div className="chips" aria-label="Folders already assigned">
          <span className="hint">Already assigned in {container}:</span>
          <ul>
            {chips.map((f) => (
              <li key={f} className="chip">
                {f}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {folderArea}
      <div className="form-actions">
        <button type="button" className="btn btn-primary" onClick={submit} disabled={disabled}>
          {assign.isPending ? 'Assigning…' : mode === 'update' ? 'Assign Additional Folders' : 'Assign Resources'}
        </button>
      </div>
    </section>
  );
}
