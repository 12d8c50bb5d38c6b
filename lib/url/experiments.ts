/** URL state of the Experiments page, shared by the page and its CSV export. */
import { createLoader, parseAsBoolean, parseAsString } from "nuqs/server";

export const experimentsSearchParams = {
  /** A saved experiment: exactly its runs. */
  experiment: parseAsString,
  dataset: parseAsString,
  /** Also runs without a dataset, and archived runs. */
  all: parseAsBoolean.withDefault(false),
  archived: parseAsBoolean.withDefault(false),
  /** Also the runs of sweeps (left out until asked for, like reruns). */
  sweeps: parseAsBoolean.withDefault(false),
};

export const loadExperimentsParams = createLoader(experimentsSearchParams);

export function experimentsQuery(p: {
  experiment?: string | null;
  dataset?: string | null;
  all?: boolean;
  archived?: boolean;
  sweeps?: boolean;
}): string {
  const q = new URLSearchParams();
  if (p.experiment) q.set("experiment", p.experiment);
  if (p.dataset) q.set("dataset", p.dataset);
  if (p.all) q.set("all", "true");
  if (p.archived) q.set("archived", "true");
  if (p.sweeps) q.set("sweeps", "true");
  const s = q.toString();
  return s ? `?${s}` : "";
}
