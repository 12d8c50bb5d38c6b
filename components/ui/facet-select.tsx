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

/** The question facets a table of questions filters by: database and difficulty. */
export function QuestionFacets({
  db,
  difficulty,
  databases,
  difficulties,
  onChange,
}: {
  db: string | null;
  difficulty: string | null;
  databases: string[];
  difficulties: string[];
  onChange: (patch: { db?: string | null; difficulty?: string | null }) => void;
}) {
  return (
    <>
      <FacetSelect
        label="database"
        allLabel="all databases"
        value={db}
        options={databases}
        onChange={(v) => onChange({ db: v })}
      />
      <FacetSelect
        label="difficulty"
        allLabel="all difficulties"
        value={difficulty}
        options={difficulties}
        onChange={(v) => onChange({ difficulty: v })}
      />
    </>
  );
}
