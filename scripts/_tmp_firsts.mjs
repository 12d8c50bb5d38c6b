// node firsts2.mjs STORE : per page, a fresh server (warm-up off): first request ms
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
const [store] = process.argv.slice(2);
const d = new Database(store, { readonly: true });
const runs = d.prepare("SELECT id FROM runs ORDER BY id LIMIT 3").all().map((r) => r.id);
const q = d.prepare("SELECT question_id q FROM traces WHERE run_id = ? LIMIT 1").get(runs[0]).q;
d.close();
const pages = { home: "/", run: `/runs/${runs[0]}`, question: `/runs/${runs[0]}/questions/${q}`, compare: `/compare?runs=${runs.join(",")}`, search: "/search?q=describe_table%20table_b1" };
const out = {};
for (const [name, url] of Object.entries(pages)) {
  const child = spawn("node_modules/.bin/next", ["start", "-p", "3592", "-H", "127.0.0.1"], { env: { ...process.env, DATABASE_PATH: store, METRON_WARM_UP: "0" }, stdio: ["ignore", "pipe", "pipe"] });
  for (;;) { try { if ((await fetch("http://127.0.0.1:3592/api/schema/trace")).ok) break; } catch {} await new Promise((r) => setTimeout(r, 50)); }
  const t1 = performance.now(); const res = await fetch("http://127.0.0.1:3592" + url); await res.arrayBuffer(); const first = performance.now() - t1;
  out[name] = Math.round(first);
  child.kill("SIGTERM"); await new Promise((r) => child.on("exit", r)); await new Promise((r) => setTimeout(r, 500));
}
console.log(JSON.stringify(out));
