/** A searchable single choice: a search box over a scrolling list of radio options, each with an optional badge (ContainerPicker, the SmartToken dialog's folder picker). */
import type { ReactNode } from 'react';
import { filterBySearch } from '../lib/search';
import { Field } from './Field';
import { EmptyState } from './States';

export interface PickerProps {
  /** The radio group's name and the prefix of the search box's id. */
  name: string;
  legend: string;
  /** The search box's label, e.g. 'Search containers'. */
  searchLabel: string;
  search: string;
  onSearch: (search: string) => void;
  /** Every option, in the order shown; the search (case-insensitive substring) narrows them. */
  options: readonly string[];
  value: string | null;
  onChoose: (option: string) => void;
  /** Shown when the search leaves nothing. */
  noMatch: ReactNode;
  badge?: (option: string) => ReactNode;
  autoFocus?: boolean;
}

export function Picker({ name, legend, searchLabel, search, onSearch, options, value, onChoose, noMatch, badge, autoFocus }: PickerProps) {
  const visible = filterBySearch(options, search, (option) => option);
  return (
    <>
      <Field
        id={`${name}-search`}
        label={searchLabel}
        type="search"
        value={search}
        onValue={onSearch}
        autoComplete="off"
        data-autofocus={autoFocus ? true : undefined}
      />
      {visible.length === 0 ? (
        <EmptyState>{noMatch}</EmptyState>
      ) : (
        <fieldset className="picker">
          <legend>{legend}</legend>
          {visible.map((option) => (
            <label key={option} className={option === value ? 'picker-item picker-item-selected' : 'picker-item'}>
              <input type="radio" name={name} value={option} checked={option === value} onChange={() => onChoose(option)} />
              <span>{option}</span>
              {badge?.(option)}
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
}
