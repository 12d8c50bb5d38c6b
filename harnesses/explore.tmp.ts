import fs from "node:fs";
import { startFakeLlm } from "@/lib/testing/fake-llm";
import { SCRIPT, USAGE, harnessStore } from "./common";
const store = await harnessStore();
const fake = await startFakeLlm(SCRIPT, USAGE);
console.log(JSON.stringify({ url: fake.url, origin: fake.origin, env: store.env, home: store.home }));
setInterval(
  () =>
    fs.writeFileSync(
      "/tmp/hx/requests.json",
      JSON.stringify(
        fake.requests.map((r) => ({
          api: r.api,
          stream: r.stream,
          step: r.step,
          model: r.model,
          url: r.headers,
          body: r.body,
        })),
        null,
        1,
      ),
    ),
  1000,
);
