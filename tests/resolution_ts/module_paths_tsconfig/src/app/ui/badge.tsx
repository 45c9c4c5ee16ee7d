export function Badge({ label }: { label: string }) {
  return <span className="badge">{label}</span>;
}
