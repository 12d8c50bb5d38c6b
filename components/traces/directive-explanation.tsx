import type { DirectiveExplanation, TableReason } from "@/lib/environment/directives/explain";

const VIA: Record<string, { label: string; title: string; className: string }> = {
  keyword: {
    label: "keyword",
    title: "named by the keyword half of the index (BM25)",
    className: "bg-sky-100 text-sky-900",
  },
  semantic: {
    label: "semantic",
    title: "named by the semantic half of the index (embeddings) alone",
    className: "bg-violet-100 text-violet-900",
  },
  both: {
    label: "both",
    title: "named by both halves of the index (BM25 and embeddings)",
    className: "bg-emerald-100 text-emerald-900",
  },
};

function Reason({ r }: { r: TableReason }) {
  if (r.kind === "named")
    return (
      <span title="a question word, or a schema word found in one (a German compound's part, a participle's verb), is the table's whole name">
        named in the question
      </span>
    );
  if (r.kind === "bridge")
    return <span title="on a shortest foreign-key path between kept tables that were not yet joined">bridge</span>;
  if (r.kind === "value")
    return (
      <span>
        holds the value <q>{r.text}</q>
      </span>
    );
  const via = r.via ? VIA[r.via] : null;
  return (
    <span>
      {r.kind === "compound" ? (
        <span title="a schema word inside a longer question word (a German compound); in a German question also a longer schema word that a question word begins (Zeugnis → zeugnisinhalte), the verb of a participle (eingeschrieben → einschreibung), or the singular of a Latin plural (Museen → museum)">
          schema word
        </span>
      ) : (
        "phrase"
      )}{" "}
      <q>{r.text}</q>{" "}
      {r.through && (
        <span
          data-testid="directive-through-key"
          title={`the phrase hit ${r.through}, a column of another table that refers to this one (a foreign key, or a column named after this table)`}
        >
          through the key <span className="font-mono">{r.through}</span>{" "}
        </span>
      )}
      {via ? (
        <span className={`rounded px-1 text-xs ${via.className}`} title={via.title}>
          {via.label}
        </span>
      ) : (
        <span className="text-xs text-zinc-500" title="this trace did not record which half of the index named it">
          half not recorded
        </span>
      )}
    </span>
  );
}

/** The no-evidence rule as this trace recorded it: on, off, or not recorded (traces from before the rule). */
function NoEvidenceRule({ on }: { on: boolean | null }) {
  if (on === true)
    return (
      <span data-testid="no-evidence-rule">
        When none of these met any table, nothing is flagged: the index found no evidence about the question, and
        flagging every table is never right.
      </span>
    );
  if (on === false)
    return (
      <span data-testid="no-evidence-rule">
        These directives were computed with the no-evidence rule off: when none of these met any table, every table was
        flagged.
      </span>
    );
  return (
    <span data-testid="no-evidence-rule">
      This trace did not record whether the no-evidence rule was on; directives computed before it flagged every table
      when none of these met any table.
    </span>
  );
}

/** Why the computed directives kept or flagged each table, and which half of the index named it. */
export function DirectiveExplanationPanel({ explanation }: { explanation: DirectiveExplanation }) {
  const kept = explanation.tables.filter((t) => !t.flagged);
  const flagged = explanation.tables.filter((t) => t.flagged);
  return (
    <details className="rounded border border-zinc-200 p-2 text-sm" data-testid="directive-explanation">
      <summary className="cursor-pointer font-medium">
        Why these directives: {kept.length} table{kept.length === 1 ? "" : "s"} kept, {flagged.length} flagged
      </summary>
      <p className="mt-1 text-xs text-zinc-600">
        Strategy {explanation.strategy}; phrases from{" "}
        {explanation.phraseSource === "model" ? "the directive model" : "the keyword extractor"}; index:{" "}
        {explanation.semantic
          ? `BM25 fused with ${explanation.embedder ?? "an embedding index"} by reciprocal rank fusion`
          : "BM25 only (no semantic half)"}
        . A table is kept when the best hit of a phrase, or of a schema word found in a question word, is one of its
        columns (or a key column referring to it; a key that names a role, such as a destination airport, keeps its own
        table too), when the question names it or a value it holds, or when it bridges kept tables; every other table is
        flagged. <NoEvidenceRule on={explanation.noEvidenceRule} />
      </p>
      {explanation.noEvidence && (
        <p className="mt-1 text-xs font-medium text-amber-800" data-testid="directive-no-evidence">
          No phrase, schema word, name or value of this question met any table of its database, so no table is flagged.
        </p>
      )}
      <ul className="mt-2 space-y-1">
        {kept.map((t) => (
          <li key={t.table} className="flex flex-wrap items-baseline gap-x-2">
            <span className="font-mono font-semibold">{t.table}</span>
            {t.reasons.map((r, i) => (
              <span key={i} className="text-xs">
                {i > 0 && "· "}
                <Reason r={r} />
              </span>
            ))}
          </li>
        ))}
      </ul>
      {flagged.length > 0 && (
        <p className="mt-2 text-xs text-zinc-600">
          Flagged (no phrase, name, value or bridge kept them):{" "}
          {flagged.map((t, i) => (
            <span key={t.table}>
              {i > 0 && ", "}
              <span className="font-mono line-through">{t.table}</span>
            </span>
          ))}
        </p>
      )}
    </details>
  );
}
