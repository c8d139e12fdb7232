/** The folders of the chosen container: a search box over a multi-select (each folder's patient
 * first when known, then its code), and how many are selected. */
import { Field } from '../../../components/Field';
import { folderText } from '../../../components/PatientIdentity';
import { EmptyState } from '../../../components/States';
import type { PatientDetails } from '../../../lib/api/types';
import { plural } from '../../../lib/format';
import { ASSIGN_MSG } from '../messages';

interface FolderSelectProps {
  /** The folders the search leaves visible. */
  folders: string[];
  /** The patients of the container's folders that have one, by folder. */
  patients?: Record<string, PatientDetails>;
  /** Every selected folder, including those the search hides. */
  selected: string[];
  search: string;
  onSearch: (search: string) => void;
  /** The visible folders now selected. */
  onSelect: (visibleSelected: string[]) => void;
}

export function FolderSelect({ folders, patients, selected, search, onSearch, onSelect }: FolderSelectProps) {
  return (
    <>
      <Field id="folder-search" label="Search folders" type="search" value={search} onValue={onSearch} />
      {folders.length === 0 ? (
        <EmptyState>{ASSIGN_MSG.noMatch}</EmptyState>
      ) : (
        <Field id="folder-select" label="Folders" hint="Hold Ctrl (Cmd on a Mac) to select several folders.">
          <select
            id="folder-select"
            multiple
            size={Math.min(10, Math.max(4, folders.length))}
            value={selected.filter((f) => folders.includes(f))}
            onChange={(e) => onSelect(Array.from(e.target.options).filter((o) => o.selected).map((o) => o.value))}
            aria-describedby="folder-select-hint"
          >
            {folders.map((folder) => (
              <option key={folder} value={folder}>
                {folderText(folder, patients?.[folder])}
              </option>
            ))}
          </select>
        </Field>
      )}
      <p className="selected-count" aria-live="polite">
        {plural(selected.length, 'folder')} selected
      </p>
    </>
  );
}
