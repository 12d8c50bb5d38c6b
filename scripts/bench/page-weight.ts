/**
 * `npm run bench -- page-weight`: the JavaScript each page makes the browser download, compressed as it travels
 * (Chromium, through Playwright, against the built app on a store seeded with the demo), and the HTML. The routes'
 * first-load JavaScript is what the build used to print; Next 16's Turbopack build no longer does, so it is measured
 * where it matters, in the browser. Target (issue 21): the question page and the run page under 250 kB.
 */
import { asSql } from "@/lib/db/sql";
import { chromium } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "@/lib/db/client";
import { seedDemo } from "@/lib/demo/seed";
import { CHROMIUM, CHROMIUM_ARGS } from "../shell.mjs";
import { startServer } from "./server";

export async function benchPageWeight(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-weight-"));
  const store = path.join(dir, "store.db");
  const db = openDb(store);
  const demo = await seedDemo(asSql(db.$client), { dir: path.join(dir, "demo") });
  const run = demo.runs[0];
  const question = db.$client.prepare("SELECT question_id AS q FROM traces WHERE run_id = ? LIMIT 1").get(run.id) as {
    q: string;
  };
  db.$client.close();
  const server = await startServer(store, 3207);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const routes: [string, string][] = [
      ["runs (home)", "/"],
      ["run page", `/runs/${run.id}`],
      ["question page", `/runs/${run.id}/questions/${encodeURIComponent(question.q)}`],
      ["experiments", "/experiments"],
      ["compare", `/compare?runs=${demo.runs.map((r) => r.id).join(",")}`],
      ["search", "/search?q=customers"],
      ["datasets", "/datasets"],
      ["settings", "/settings"],
    ];
    console.log(`page weight (compressed bytes over the wire; load average ${os.loadavg()[0].toFixed(2)})`);
    console.log(`${"route".padEnd(16)} ${"JavaScript".padStart(12)} ${"HTML".padStart(10)} ${"scripts".padStart(8)}`);
    let over = false;
    for (const [name, route] of routes) {
      const page = await browser.newPage();
      const sizes: Promise<{ js: number; html: number }>[] = [];
      let scripts = 0;
      page.on("requestfinished", (request) => {
        const type = request.resourceType();
        if (type !== "script" && type !== "document") return;
        if (type === "script") scripts++;
        sizes.push(
          request.sizes().then((s) => ({
            js: type === "script" ? s.responseBodySize : 0,
            html: type === "document" ? s.responseBodySize : 0,
          })),
        );
      });
      await page.goto(server.url + route, { waitUntil: "networkidle" });
      const total = (await Promise.all(sizes)).reduce((a, b) => ({ js: a.js + b.js, html: a.html + b.html }), {
        js: 0,
        html: 0,
      });
      if ((name === "question page" || name === "run page") && total.js > 250 * 1024) over = true;
      console.log(
        `${name.padEnd(16)} ${(total.js / 1024).toFixed(0).padStart(9)} kB ${(total.html / 1024).toFixed(0).padStart(7)} kB ${String(scripts).padStart(8)}`,
      );
      await page.close();
    }
    console.log(`target: question page and run page under 250 kB of JavaScript: ${over ? "NOT met" : "met"}`);
    return 0;
  } finally {
    await browser.close();
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
