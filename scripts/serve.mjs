// Serving the built app (`npm run up`, `npm start`): without an access token Metron is open to whoever reaches it,
// so it listens on this machine only unless told otherwise (METRON_HOST), and says so; requests must name a host it
// knows (127.0.0.1, localhost, [::1], METRON_ALLOWED_HOSTS: lib/auth/hosts.ts). Ctrl-C stops it quietly.
import { spawn } from "node:child_process";
import path from "node:path";
import { root } from "./shell.mjs";

export function serve() {
  const port = process.env.PORT ?? "3000";
  const tokens = Boolean(process.env.METRON_TOKEN || process.env.METRON_TOKENS_FILE);
  const host = process.env.METRON_HOST ?? (tokens ? "0.0.0.0" : "127.0.0.1");
  const local = ["127.0.0.1", "localhost", "::1"].includes(host);
  if (!tokens && local)
    console.log(
      "No access token (METRON_TOKEN or METRON_TOKENS_FILE): listening on this machine only. See docs/security.md to share it.",
    );
  if (!tokens && !local)
    console.warn(
      `\n⚠ Listening on ${host} WITHOUT an access token: anyone who reaches port ${port} can read every trace, upload, evaluate and start reruns that spend your provider keys. Set METRON_TOKEN (docs/security.md).\n`,
    );
  if (!local && !process.env.METRON_ALLOWED_HOSTS)
    console.warn(
      `Reached under a name other than localhost or 127.0.0.1, requests are refused (421) until METRON_ALLOWED_HOSTS lists that name (docs/security.md).`,
    );
  console.log(`Serving on http://${local ? "localhost" : host}:${port}`);
  const server = spawn(path.join(root, "node_modules", ".bin", "next"), ["start", "-p", port, "-H", host], {
    cwd: root,
    stdio: "inherit",
  });
  // Ctrl-C reaches the server too (same terminal): wait for it to stop, then leave quietly.
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, () => {
      stopping = true;
      server.kill(signal);
    });
  server.on("exit", (code, signal) => {
    if (stopping || signal === "SIGINT" || signal === "SIGTERM") {
      console.log("\nMetron stopped.");
      process.exit(0);
    }
    process.exit(code ?? 1);
  });
}
