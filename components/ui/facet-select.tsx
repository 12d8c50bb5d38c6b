"use client";

/** A select of the values of one facet (system, model, database, difficulty); "" means all. */
export function FacetSelect({
  label,
  value,
  options,
  onChange,
  allLabel = "all",
}: {
  label: string;
  value: string | null;
  options: string[];
  onChange: (v: string | null) => void;
  allLabel?: string;
}) {
  return (
    <select
      aria-label={`Filter by ${label}`}
      className="rounded border border-zinc-300 bg-white px-2 py-1"
      value={value ?? ""}
      onChange={(e) => onChange(e.target.value || null)}
    >
      <option value="">{allLabel}</option>
      {options.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </select>
  );
}
