import { beforeAll, describe, expect, it } from "vitest";
import { expectScriptedTrace, useHarness, waitForTraces } from "../common";
import { initializeOpenLLMetry, openLLMetrySession } from "./openllmetry";

/** The OpenLLMetry set-up, batched or not, against a running Metron: the one trace of its session, complete. */
export function describeOpenLLMetry(disableBatch: boolean) {
  describe(`OpenLLMetry 0.27 (${disableBatch ? "disableBatch" : "batched"}), over OTLP to a running Metron`, () => {
    const h = useHarness({ metron: true });
    beforeAll(() => initializeOpenLLMetry(h.metron.url, disableBatch));

    it("one complete trace of the session: every call with its error, the submission, tokens, directives, EX", async () => {
      await openLLMetrySession(h.store, h.fake, "openllmetry");
      await waitForTraces(h.store.sql, "openllmetry");
      // Spans that end after the first assembly are merged in: wait for the quiet period to pass once more.
      await new Promise((r) => setTimeout(r, 2500));
      await expectScriptedTrace(h.store.sql, "openllmetry", {
        modelCalls: h.fake.loopRequests().length,
        model: "fake-sql",
        // OpenLLMetry 0.27's OpenAI instrumentation records no cached tokens (its spans carry input, output and
        // total only, though the response had prompt_tokens_details.cached_tokens): there is nothing to read.
        cached: false,
      });
      expect(h.metron.log()).not.toMatch(/refused/);
    });
  });
}
