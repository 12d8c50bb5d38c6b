import Link from "next/link";

interface Props {
  /** The server action that saves the view's runs as an experiment (handed in by the page). */
  saveExperiment: (form: FormData) => Promise<void>;
  params: { experiment: string | null; dataset: string | null; all: boolean; archived: boolean; sweeps: boolean };
  datasets: { id: string; name: string }[];
  experiments: { id: string; name: string }[];
  runIds: string[];
  saved: boolean;
}

/** Which runs the Experiments page covers (a GET form: every view is a link), and saving the view as an experiment. */
export function ExperimentControls({ params, datasets, experiments, runIds, saved, saveExperiment }: Props) {
  return (
    <div className="flex flex-wrap items-end gap-6 rounded-lg border border-zinc-200 bg-white p-3 text-sm">
      {!saved && (
        <form method="get" className="flex flex-wrap items-end gap-3" data-testid="experiment-filters">
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Dataset</span>
            <select
              name="dataset"
              defaultValue={params.dataset ?? ""}
              className="rounded border border-zinc-300 bg-white px-2 py-1"
            >
              <option value="">all datasets</option>
              {datasets.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="all" value="true" defaultChecked={params.all} /> runs without a dataset
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="archived" value="true" defaultChecked={params.archived} /> archived runs
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="sweeps" value="true" defaultChecked={params.sweeps} /> sweep runs
          </label>
          <button type="submit" className="rounded border border-zinc-300 px-3 py-1">
            Show
          </button>
        </form>
      )}
      {!saved && runIds.length > 0 && (
        <form action={saveExperiment} className="flex items-end gap-2">
          <input type="hidden" name="runIds" value={JSON.stringify(runIds)} />
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Save these {runIds.length} runs as an experiment</span>
            <input
              name="name"
              required
              maxLength={200}
              placeholder="e.g. paper, table 3"
              className="rounded border border-zinc-300 px-2 py-1"
            />
          </label>
          <button type="submit" className="rounded bg-zinc-900 px-3 py-1 text-white">
            Save
          </button>
        </form>
      )}
      {(experiments.length > 0 || saved) && (
        <nav className="flex flex-wrap items-center gap-2" aria-label="Saved experiments">
          <span className="text-xs text-zinc-600">Saved:</span>
          {saved && (
            <Link href="/experiments" className="text-blue-700 hover:underline">
              all runs
            </Link>
          )}
          {experiments.map((e) => (
            <Link
              key={e.id}
              href={`/experiments?experiment=${e.id}`}
              aria-current={params.experiment === e.id ? "page" : undefined}
              className={params.experiment === e.id ? "font-semibold" : "text-blue-700 hover:underline"}
            >
              {e.name}
            </Link>
          ))}
        </nav>
      )}
    </div>
  );
}
