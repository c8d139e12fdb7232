/** One summary card: a label over a large value (the dashboards' counts). */
export function Stat({ label, value }: { label: string; value: number | string }) {
  return (
    <div className="card stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value">{value}</span>
    </div>
  );
}
