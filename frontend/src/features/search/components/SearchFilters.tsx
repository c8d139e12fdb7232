/** The results screen's form: the words and the filters (container, folder, file type, modified
 * dates), sent to the address on Search, so the address always says what is shown. On a phone
 * the filters are behind a "Filters" disclosure (closed at first), so that the results are on
 * the first screen (issue 50). */
import { useState, type FormEvent } from 'react';
import { Field } from '../../../components/Field';
import { FilterActions } from '../../../components/FilterActions';
import { EMPTY_SEARCH, FILE_TYPES, type SearchQuery } from '../../../lib/searchQuery';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/useMediaQuery';
import { SEARCH_MSG } from '../messages';

interface SearchFiltersProps {
  /** The search on screen: the form starts from it. */
  query: SearchQuery;
  onSearch: (query: SearchQuery) => void;
}

export function SearchFilters({ query, onSearch }: SearchFiltersProps) {
  const [draft, setDraft] = useState(query);
  const [problem, setProblem] = useState<string | null>(null);
  const phone = useMediaQuery(PHONE_QUERY);
  const [open, setOpen] = useState(false);
  const setCount = (['container', 'folder', 'type', 'modifiedFrom', 'modifiedTo'] as const).filter((field) => query[field] !== '').length;
  const set = (field: keyof SearchQuery) => (value: string) => setDraft((current) => ({ ...current, [field]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.modifiedFrom && draft.modifiedTo && draft.modifiedTo < draft.modifiedFrom) {
      setProblem(SEARCH_MSG.badRange);
      setOpen(true);
      return;
    }
    setProblem(null);
    onSearch(draft);
  };
  const clear = () => {
    const next = { ...EMPTY_SEARCH, q: draft.q };
    setDraft(next);
    setProblem(null);
    onSearch(next);
  };

  return (
    <form className="panel search-form" aria-label="Search and filters" onSubmit={submit} noValidate>
      <Field
        id="search-q"
        label="Search for"
        type="search"
        value={draft.q}
        onValue={set('q')}
        hint={SEARCH_MSG.syntax}
        autoComplete="off"
        enterKeyHint="search"
      />
      {phone ? (
        <button
          type="button"
          className="btn filters-toggle"
          aria-expanded={open}
          aria-controls="search-filters"
          onClick={() => setOpen((value) => !value)}
        >
          {SEARCH_MSG.filters(setCount)}
        </button>
      ) : null}
      <fieldset className="search-filters" id="search-filters" hidden={phone && !open}>
        <legend>Filters</legend>
        <div className="filters">
          <Field id="search-container" label="Container" value={draft.container} onValue={set('container')} autoComplete="off" />
          <Field id="search-folder" label="Patient folder" value={draft.folder} onValue={set('folder')} autoComplete="off" />
          <Field id="search-type" label="File type">
            <select id="search-type" value={draft.type} onChange={(event) => set('type')(event.target.value)}>
              <option value="">Any type</option>
              {FILE_TYPES.map(({ value, label }) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <Field id="search-from" label="Modified from" type="date" value={draft.modifiedFrom} onValue={set('modifiedFrom')} />
          <Field id="search-to" label="Modified to" type="date" value={draft.modifiedTo} onValue={set('modifiedTo')} />
        </div>
      </fieldset>
      {problem ? (
        <p className="field-error" role="alert">
          {problem}
        </p>
      ) : null}
      <FilterActions apply="Search" clear="Clear filters" onClear={clear} />
    </form>
  );
}
