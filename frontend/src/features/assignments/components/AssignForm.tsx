/** Assign Resources: pick a container (the searchable ContainerPicker, assigned ones marked), then folders from a searchable multi-select. */
import { useEffect, useMemo, useState } from 'react';
import { Banner } from '../../../components/Banner';
import { ContainerPicker } from '../../../components/ContainerPicker';
import { NOTIFICATION_MS } from '../../../components/Notifications';
import { folderText } from '../../../components/PatientIdentity';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { EmptyState } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { FolderAssignment, User } from '../../../lib/api/types';
import { filterBySearch } from '../../../lib/search';
import { naturalSort } from '../../../lib/sort';
import { useContainers, useFolders } from '../../../lib/storageLists';
import { useAssignResources } from '../api/assign';
import { ASSIGN_MSG } from '../messages';
import { FolderSelect } from './FolderSelect';

interface AssignFormProps {
  user: User;
  assignedContainers: string[];
  assignedFolders: FolderAssignment[];
}

/** The outcome shows beside the assign button, where the admin is looking: a "required" or
 * server error stays until closed, a success goes after 5 seconds. A corner notification
 * covered the button (Assign Additional Folders) the next click needs. */
export function AssignForm({ user, assignedContainers, assignedFolders }: AssignFormProps) {
  const containers = useContainers();
  const [container, setContainer] = useState<string | null>(null);
  const [folderSearch, setFolderSearch] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const folders = useFolders(container);
  useEffect(() => {
    if (!done) return;
    const timer = window.setTimeout(() => setDone(null), NOTIFICATION_MS);
    return () => window.clearTimeout(timer);
  }, [done]);
  const assign = useAssignResources();

  const mode: 'new' | 'update' = container && assignedContainers.includes(container) ? 'update' : 'new';
  const chips = useMemo(
    () => naturalSort(assignedFolders.filter((f) => f.containerName === container).map((f) => f.folderName)),
    [assignedFolders, container],
  );
  const allFolders = useMemo(() => naturalSort(folders.data?.folders ?? []), [folders.data]);
  const available = useMemo(() => allFolders.filter((f) => !chips.includes(f)), [allFolders, chips]);
  const patients = folders.data?.patients;
  // A folder is found by its code or by its patient as the option shows them.
  const visible = useMemo(
    () => filterBySearch(available, folderSearch, (f) => folderText(f, patients?.[f])),
    [available, folderSearch, patients],
  );

  const chooseContainer = (name: string) => {
    setContainer(name);
    setSelected([]);
    setFolderSearch('');
    setError(null);
    setDone(null);
  };

  const onSelectChange = (chosenVisible: string[]) => {
    // Keep selections hidden by the current search; replace those among the visible options.
    setSelected((current) => naturalSort([...current.filter((f) => !visible.includes(f)), ...chosenVisible]));
  };

  const foldersListed = Boolean(container) && folders.isSuccess && available.length > 0;
  const disabled =
    assign.isPending || (foldersListed && selected.length === 0) || (mode === 'update' && selected.length === 0);

  const submit = () => {
    setDone(null);
    if (!container) {
      setError(ASSIGN_MSG.selectContainer);
      return;
    }
    setError(null);
    assign.mutate(
      { mode, container, userId: user.id, folderNames: selected },
      {
        onSuccess: () => {
          setDone(mode === 'new' ? ASSIGN_MSG.assigned : ASSIGN_MSG.assignedMore);
          setSelected([]);
          setFolderSearch('');
        },
        onError: (err) => setError(errorMessage(err, ASSIGN_MSG.assignFailed)),
      },
    );
  };

  return (
    <section className="panel split-side" aria-labelledby="assign-resources">
      <h2 id="assign-resources">Assign Resources</h2>
      <ContainerPicker
        query={containers}
        name="container"
        legend="Container"
        empty={ASSIGN_MSG.noContainers}
        value={container}
        onChoose={chooseContainer}
        badge={(c) => (assignedContainers.includes(c) ? <span className="badge badge-muted">Already Assigned</span> : null)}
      />
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
      {container ? (
        <QueryBoundary
          query={folders}
          messages={{ loading: 'Loading folders…', loadFailed: ASSIGN_MSG.loadFoldersFailed(container), empty: ASSIGN_MSG.noFolders }}
          isEmpty={() => allFolders.length === 0}
        >
          {() =>
            available.length === 0 ? (
              <EmptyState>{ASSIGN_MSG.allAssigned}</EmptyState>
            ) : (
              <>
                <FolderSelect
                  folders={visible}
                  patients={patients}
                  selected={selected}
                  search={folderSearch}
                  onSearch={setFolderSearch}
                  onSelect={onSelectChange}
                />
                <p className="hint warning-text">{ASSIGN_MSG.transferWarning}</p>
              </>
            )
          }
        </QueryBoundary>
      ) : (
        <p className="muted">Choose a container to see its folders.</p>
      )}
      <Banner kind="error" onClose={() => setError(null)}>
        {error}
      </Banner>
      <div aria-live="polite">
        <Banner kind="success" onClose={() => setDone(null)}>
          {done}
        </Banner>
      </div>
      <div className="form-actions">
        <button type="button" className="btn btn-primary" onClick={submit} disabled={disabled}>
          {assign.isPending ? 'Assigning…' : mode === 'update' ? 'Assign Additional Folders' : 'Assign Resources'}
        </button>
      </div>
    </section>
  );
}
