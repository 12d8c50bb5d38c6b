import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm } from "@/lib/testing/fake-llm";
import {
  SCRIPT,
  USAGE,
  expectScriptedTrace,
  harnessStore,
  startMetron,
  waitForTraces,
  type HarnessStore,
} from "../common";
import { initializeOpenLLMetry, openLLMetrySession } from "./openllmetry";

/** The OpenLLMetry set-up, batched or not, against a running Metron: the one trace of its session, complete. */
export function describeOpenLLMetry(disableBatch: boolean) {
  describe(`OpenLLMetry 0.27 (${disableBatch ? "disableBatch" : "batched"}), over OTLP to a running Metron`, () => {
    let store: HarnessStore;
    let metron: Awaited<ReturnType<typeof startMetron>>;
    let fake: FakeLlm;
    beforeAll(async () => {
      store = await harnessStore();
      metron = await startMetron(store);
      fake = await startFakeLlm(SCRIPT, USAGE);
      initializeOpenLLMetry(metron.url, disableBatch);
    }, 120_000);
    afterAll(async () => {
      await fake?.close();
      await metron?.stop();
      await store?.cleanup();
    });

    it("one complete trace of the session: every call with its error, the submission, tokens, directives, EX", async () => {
      await openLLMetrySession(store, fake, "openllmetry");
      await waitForTraces(store.sql, "openllmetry");
      // Spans that end after the first assembly are merged in: wait for the quiet period to pass once more.
      await new Promise((r) => setTimeout(r, 2500));
      await expectScriptedTrace(store.sql, "openllmetry", {
        modelCalls: fake.loopRequests().length,
        model: "fake-sql",
        // OpenLLMetry 0.27's OpenAI instrumentation records no cached tokens (its spans carry input, output and
        // total only, though the response had prompt_tokens_details.cached_tokens): there is nothing to read.
        cached: false,
      });
      expect(metron.log()).not.toMatch(/refused/);
    });
  });
}
