"use client";

import { count } from "@/lib/text/count";
import { useState, useTransition } from "react";
import { stepRoles } from "@/lib/sql/classify-step";

export type ActionResult = { ok: true; message: string; changed?: number } | { ok: false; error: string };

/** The server actions the page hands in (app/runs/[runId]/actions.ts): components never import from app/. */
export interface CurationActions {
  saveRunIdentity(
    runId: string,
    form: { name: string; system: string; model: string; description: string; tags: string },
  ): Promise<ActionResult>;
  linkDataset(runId: string, dataset: string): Promise<ActionResult>;
  previewRunRoles(runId: string, roles: string): Promise<ActionResult>;
  applyRunRoles(runId: string, roles: string): Promise<ActionResult>;
  setRunArchived(runId: string, archived: boolean): Promise<ActionResult>;
  removeRun(runId: string): Promise<ActionResult>;
}

export interface CurationProps {
  actions: CurationActions;
  run: {
    id: string;
    name: string;
    system: string;
    model: string;
    description: string | null;
    tags: string[];
    datasetId: string | null;
    archived: boolean;
    traces: number;
  };
  datasets: { id: string; name: string }[];
  tools: { tool: string; role: string; calls: number }[];
}

function Status({ result }: { result: ActionResult | null }) {
  if (!result) return null;
  return (
    <p role="status" className={`text-xs ${result.ok ? "text-emerald-800" : "text-red-700"}`}>
      {result.ok ? result.message : result.error}
    </p>
  );
}

const input = "rounded border border-zinc-300 bg-white px-2 py-1";

/** Fixing a run after upload: identity, dataset link, tool roles (previewed), archive, delete. */
export function RunCuration({ run, datasets, tools, actions }: CurationProps) {
  const [pending, start] = useTransition();
  const [results, setResults] = useState<Record<string, ActionResult | null>>({});
  const act = (key: string, fn: () => Promise<ActionResult>) =>
    start(async () => {
      const r = await fn();
      setResults((all) => ({ ...all, [key]: r }));
    });
  const [identity, setIdentity] = useState({
    name: run.name,
    system: run.system,
    model: run.model,
    description: run.description ?? "",
    tags: run.tags.join(", "),
  });
  const [dataset, setDataset] = useState(run.datasetId ?? "");
  const [roles, setRoles] = useState<Record<string, string>>(Object.fromEntries(tools.map((t) => [t.tool, t.role])));
  const [confirming, setConfirming] = useState(false);
  const rolesJson = JSON.stringify(roles);

  return (
    <details className="rounded-lg border border-zinc-200 bg-white p-3 text-sm" data-testid="run-curation">
      <summary className="cursor-pointer font-semibold">Edit this run</summary>
      <div className="mt-3 grid gap-5 lg:grid-cols-2">
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            act("identity", () => actions.saveRunIdentity(run.id, identity));
          }}
        >
          <h3 className="font-medium">Name, system, model</h3>
          <div className="grid grid-cols-3 gap-2">
            {(["name", "system", "model"] as const).map((k) => (
              <label key={k} className="flex flex-col gap-1">
                <span className="text-xs text-zinc-600">
                  {k === "system" ? "System (variant)" : k[0].toUpperCase() + k.slice(1)}
                </span>
                <input
                  className={input}
                  name={`run-${k}`}
                  value={identity[k]}
                  onChange={(e) => setIdentity({ ...identity, [k]: e.target.value })}
                />
              </label>
            ))}
          </div>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Tags (comma-separated)</span>
            <input
              className={input}
              name="run-tags"
              value={identity.tags}
              onChange={(e) => setIdentity({ ...identity, tags: e.target.value })}
            />
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Description</span>
            <textarea
              className={input}
              name="run-description"
              rows={2}
              value={identity.description}
              onChange={(e) => setIdentity({ ...identity, description: e.target.value })}
            />
          </label>
          <button
            type="submit"
            disabled={pending}
            className="rounded bg-zinc-900 px-3 py-1 text-white disabled:opacity-50"
          >
            Save
          </button>
          <Status result={results.identity ?? null} />
        </form>

        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            act("dataset", () => actions.linkDataset(run.id, dataset));
          }}
        >
          <h3 className="font-medium">Dataset</h3>
          <p className="text-xs text-zinc-600">
            Linking matches each trace to a question of the dataset (by id, else by its text, as at upload) and measures
            every trace again: gold tables, over-exploration, extra tables.
          </p>
          <label className="flex items-center gap-2">
            <span className="text-xs text-zinc-600">Linked to</span>
            <select
              aria-label="Dataset of the run"
              className={input}
              value={dataset}
              onChange={(e) => setDataset(e.target.value)}
            >
              <option value="">no dataset</option>
              {datasets.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
          <button
            type="submit"
            disabled={pending || dataset === (run.datasetId ?? "")}
            className="rounded bg-zinc-900 px-3 py-1 text-white disabled:opacity-50"
          >
            {dataset ? "Link and measure again" : "Unlink"}
          </button>
          <Status result={results.dataset ?? null} />
        </form>

        <div className="space-y-2">
          <h3 className="font-medium">Tool roles</h3>
          {tools.length === 0 ? (
            <p className="text-xs text-zinc-500">No tool calls in this run.</p>
          ) : (
            <table className="text-xs">
              <thead>
                <tr>
                  <th className="pr-3 text-left">tool</th>
                  <th className="pr-3 text-right">calls</th>
                  <th className="text-left">role</th>
                </tr>
              </thead>
              <tbody>
                {tools.map((t) => (
                  <tr key={t.tool}>
                    <td className="pr-3 font-mono">{t.tool}</td>
                    <td className="pr-3 text-right tabular-nums">{t.calls}</td>
                    <td>
                      <select
                        aria-label={`Role of ${t.tool}`}
                        className="rounded border border-zinc-300 bg-white px-1"
                        value={roles[t.tool]}
                        onChange={(e) => {
                          setRoles({ ...roles, [t.tool]: e.target.value });
                          setResults((r) => ({ ...r, roles: null }));
                        }}
                      >
                        {stepRoles.map((r) => (
                          <option key={r} value={r}>
                            {r.replace(/_/g, " ")}
                          </option>
                        ))}
                      </select>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="flex gap-2">
            <button
              type="button"
              disabled={pending || tools.length === 0}
              onClick={() => act("roles", () => actions.previewRunRoles(run.id, rolesJson))}
              className="rounded border border-zinc-300 px-3 py-1 disabled:opacity-50"
            >
              Preview
            </button>
            <button
              type="button"
              disabled={pending || tools.length === 0}
              onClick={() => act("roles", () => actions.applyRunRoles(run.id, rolesJson))}
              className="rounded bg-zinc-900 px-3 py-1 text-white disabled:opacity-50"
            >
              Apply and recompute
            </button>
          </div>
          <Status result={results.roles ?? null} />
        </div>

        <div className="space-y-2">
          <h3 className="font-medium">Archive or delete</h3>
          <p className="text-xs text-zinc-600">
            An archived run is hidden from the run list and the Experiments page, and kept. Deleting removes its{" "}
            {count(run.traces, "trace")}, their steps and the results no other trace uses, for good.
          </p>
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              disabled={pending}
              onClick={() => act("archive", () => actions.setRunArchived(run.id, !run.archived))}
              className="rounded border border-zinc-300 px-3 py-1 disabled:opacity-50"
            >
              {run.archived ? "Unarchive" : "Archive"}
            </button>
            {!confirming ? (
              <button
                type="button"
                onClick={() => setConfirming(true)}
                className="rounded border border-red-300 px-3 py-1 text-red-800"
              >
                Delete…
              </button>
            ) : (
              <>
                <button
                  type="button"
                  disabled={pending}
                  onClick={() => act("delete", () => actions.removeRun(run.id))}
                  className="rounded bg-red-700 px-3 py-1 text-white disabled:opacity-50"
                >
                  Delete the run and its {count(run.traces, "trace")}
                </button>
                <button
                  type="button"
                  onClick={() => setConfirming(false)}
                  className="rounded border border-zinc-300 px-3 py-1"
                >
                  Keep it
                </button>
              </>
            )}
          </div>
          <Status result={results.archive ?? results.delete ?? null} />
        </div>
      </div>
    </details>
  );
}
