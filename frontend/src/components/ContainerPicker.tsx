/** Every container (the caller's GET /api/assignments/containers query, lib/storageLists.ts
 * useContainers) in a searchable Picker, naturally sorted, with the list's loading, error and
 * empty states: the assign page's and the SmartToken dialog's. */
import { useMemo, useState, type ReactNode } from 'react';
import type { ContainersResponse } from '../lib/api/types';
import { naturalSort } from '../lib/sort';
import { Picker, type PickerProps } from './Picker';
import { QueryBoundary, type QueryState } from './QueryBoundary';

const MSG = {
  loading: 'Loading containers…',
  loadFailed: 'Failed to load containers',
  search: 'Search containers',
  noMatch: 'No containers match your search.',
} as const;

interface ContainerPickerProps extends Pick<PickerProps, 'name' | 'legend' | 'value' | 'onChoose' | 'badge' | 'autoFocus'> {
  query: QueryState<ContainersResponse>;
  /** Shown when there are no containers at all. */
  empty: ReactNode;
}

export function ContainerPicker({ query, empty, ...picker }: ContainerPickerProps) {
  const [search, setSearch] = useState('');
  const options = useMemo(() => naturalSort(query.data?.containers ?? []), [query.data]);
  return (
    <QueryBoundary query={query} messages={{ loading: MSG.loading, loadFailed: MSG.loadFailed, empty }} isEmpty={() => options.length === 0}>
      {() => <Picker {...picker} searchLabel={MSG.search} search={search} onSearch={setSearch} options={options} noMatch={MSG.noMatch} />}
    </QueryBoundary>
  );
}
