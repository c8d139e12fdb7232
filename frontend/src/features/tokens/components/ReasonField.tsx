/** The required reason of a remote disconnect or a permanent delete, chosen from the spec's list. */
export function ReasonField({
  id,
  reasons,
  value,
  onChange,
}: {
  id: string;
  reasons: readonly string[];
  value: string;
  onChange: (reason: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Reason *</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} data-autofocus>
        <option value="">Select a reason</option>
        {reasons.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </div>
  );
}
