/** The end of a filter form: its submit button (applies the filters) and a button that clears them. */
interface FilterActionsProps {
  /** The submit button's words. */
  apply: string;
  /** The clear button's words. */
  clear: string;
  onClear: () => void;
}

export function FilterActions({ apply, clear, onClear }: FilterActionsProps) {
  return (
    <div className="filters-actions">
      <button type="submit" className="btn btn-primary">
        {apply}
      </button>
      <button type="button" className="btn" onClick={onClear}>
        {clear}
      </button>
    </div>
  );
}
