/**
 * Simulated data is labelled simulated wherever it shows: the CLI's sweep status and evaluation too. And what is not
 * there (a run, a file) is said in one line, not as a misuse followed by the whole usage text.
 */
import { describe, expect, it } from "vitest";
import { metron } from "@/lib/testing/metron-cli";
import { useEngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";

describe("a simulated sweep in the CLI", () => {
  const store = useEngineStore("SQLite", (s) => importSpiderDe(s));

  it("says simulated in its status and its evaluation, in words and in JSON", async () => {
    const env = { ...store.env, METRON_SIM_STEP_DELAY_MS: "0" };
    const swept = await metron(env, [
      ...["sweep", "--dataset", "spider-de", "--questions", "0,1", "--model", "sim-careful", "--json"],
    ]);
    expect(swept.code, swept.err).toBe(0);
    const run = (JSON.parse(swept.out) as { run_id: string }).run_id;

    const status = await metron(env, ["sweep", "status", run]);
    expect(status.out).toMatch(new RegExp(`^sweep .* \\(simulated\\) \\(run ${run}\\): done$`, "m"));
    expect(status.out).toContain("cost none (simulated: free)");
    expect(JSON.parse((await metron(env, ["sweep", "status", run, "--json"])).out)).toMatchObject({ simulated: true });

    const evaluated = await metron(env, ["evaluate", "--run", run]);
    expect(evaluated.code, evaluated.err).toBe(0);
    expect(evaluated.out).toContain("a simulated run: these outcomes are of Metron's simulated policy, not a model");
    const json = JSON.parse((await metron(env, ["evaluate", "--run", run, "--json"])).out) as { simulated: boolean };
    expect(json.simulated).toBe(true);

    // A run named by part of its name: not found, said with the runs it may mean, without the usage text.
    const missed = await metron(env, ["evaluate", "--run", "sweep"]);
    expect(missed.code).toBe(1);
    expect(missed.err).toMatch(
      new RegExp(`^metron: no run with id or name "sweep"; runs whose name holds it: ${run} "Sweep `),
    );
    expect(missed.err).not.toContain("usage:");
    const noFile = await metron(env, ["ingest", "/nonexistent/runs.jsonl"]);
    expect([noFile.code, noFile.err.trim()]).toEqual([1, "metron: no such file: /nonexistent/runs.jsonl"]);
  }, 120_000);
});
