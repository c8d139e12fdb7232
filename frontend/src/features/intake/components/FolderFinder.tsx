/**
 * The patient finder of the filing dialog: a container (those the caller may see: every one for
 * admins), a search over its folders (folder, patient name, record number, date of birth, on the
 * server) and a page of the folders found, each with its patient's identity and a button to use it.
 */
import { useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/Field';
import { FoundCount } from '../../../components/FoundCount';
import { Pager } from '../../../components/Pager';
import { FolderIdentity, folderText } from '../../../components/PatientIdentity';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RowButton } from '../../../components/RowButton';
import type { PatientDetails } from '../../../lib/api/types';
import { FOLDER_PAGE_SIZE, pageCount } from '../../../lib/pager';
import { useContainers, useFolderPage } from '../../../lib/storageLists';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { INTAKE_MSG } from '../messages';

export interface FolderChoice {
  container: string;
  folder: string;
  /** The patient as the finder found it (null: not known here, read before filing). */
  patient: PatientDetails | null;
}

interface FolderFinderProps {
  /** The container to search first (the suggestion's), when the caller may see it. */
  initialContainer?: string;
  onChoose: (choice: FolderChoice) => void;
}

export function FolderFinder({ initialContainer, onChoose }: FolderFinderProps) {
  const containers = useContainers();
  const [picked, setPicked] = useState<string | null>(null);
  const search = usePagedSearch();
  const searchBox = useRef<HTMLInputElement>(null);
  useEffect(() => searchBox.current?.focus(), []);
  const names = containers.data?.containers ?? [];
  const container = picked ?? (initialContainer && names.includes(initialContainer) ? initialContainer : (names[0] ?? ''));

  return (
    <div className="folder-finder">
      <Field id="intake-finder-search" label={INTAKE_MSG.finderSearch}>
        <input
          id="intake-finder-search"
          ref={searchBox}
          type="search"
          value={search.input}
          onChange={(event) => search.setInput(event.target.value)}
          autoComplete="off"
        />
      </Field>
      <QueryBoundary
        query={containers}
        messages={{ loading: INTAKE_MSG.finderLoading, loadFailed: INTAKE_MSG.finderFailed, empty: INTAKE_MSG.finderNoContainers }}
        isEmpty={(data) => data.containers.length === 0}
      >
        {(data) => (
          <>
            <Field id="intake-finder-container" label={INTAKE_MSG.container}>
              <select id="intake-finder-container" value={container} onChange={(event) => setPicked(event.target.value)}>
                {data.containers.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </Field>
            {container ? <FoundFolders container={container} search={search} onChoose={onChoose} /> : null}
          </>
        )}
      </QueryBoundary>
    </div>
  );
}

function FoundFolders({ container, search, onChoose }: { container: string; search: ReturnType<typeof usePagedSearch>; onChoose: FolderFinderProps['onChoose'] }) {
  const query = useFolderPage(container, search.q, search.page);
  return (
    <QueryBoundary
      query={query}
      messages={{ loading: INTAKE_MSG.finderLoading, loadFailed: INTAKE_MSG.finderFailed, empty: INTAKE_MSG.finderEmpty }}
      isEmpty={(data) => data.folders.length === 0}
    >
      {(data) => (
        <>
          <FoundCount total={data.total} noun="folder" q={search.q} approximate={data.approximate} />
          <ul className="finder-results" aria-label={INTAKE_MSG.finderLegend} aria-busy={query.isPlaceholderData}>
            {data.folders.map((folder) => {
              const patient = data.patients?.[folder] ?? null;
              return (
                <li key={folder} className="finder-result-row">
                  <span className="finder-result">
                    <FolderIdentity folder={folder} patient={patient} nameClass="finder-name" />
                  </span>
                  <RowButton kind="primary" label={`${INTAKE_MSG.choose}: ${folderText(folder, patient)}`} onClick={() => onChoose({ container, folder, patient })}>
                    {INTAKE_MSG.choose}
                  </RowButton>
                </li>
              );
            })}
          </ul>
          <Pager label="Folder pages" page={search.page} pages={pageCount(data.total, FOLDER_PAGE_SIZE)} onPage={search.setPage} disabled={query.isFetching} />
        </>
      )}
    </QueryBoundary>
  );
}
