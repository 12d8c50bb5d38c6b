import { readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { expectAccessible } from "./accessible";
import { queryStore } from "./store";
import { READ_TOKEN, SECURE_PORT, WRITE_TOKEN } from "./secure.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const BASE = `http://127.0.0.1:${SECURE_PORT}`;
const one = <T>(text: string) => queryStore("secure", text)[0] as T;

interface Route {
  url: string;
  methods: string[];
  page: boolean;
}

/** Every page and route handler of the app, from its route tree, with real ids from the store where it has them. */
function appRoutes(): Route[] {
  const trace = one<{ id: string; runId: string; questionId: string }>(
    "SELECT t.id, t.run_id AS runId, t.question_id AS questionId FROM traces t LIMIT 1",
  );
  const sweep = one<{ id: string } | undefined>("SELECT run_id AS id FROM sweeps LIMIT 1")?.id;
  const ids: Record<string, string> = {
    runId: trace.runId,
    questionId: trace.questionId,
    traceId: trace.id,
    seq: "0",
    jobId: "no-such-job",
    uploadId: "no-such-upload",
  };
  const out: Route[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const f of readdirSync(dir)) {
      const p = path.join(dir, f);
      if (statSync(p).isDirectory()) walk(p, [...segments, f]);
      else if (f === "page.tsx" || f === "route.ts") {
        // A sweep's pages and routes take a sweep's run.
        const own = segments.includes("sweeps") && sweep ? { ...ids, runId: sweep } : ids;
        const url =
          "/" + segments.map((s) => (s.startsWith("[") ? encodeURIComponent(own[s.slice(1, -1)] ?? "x") : s)).join("/");
        const methods =
          f === "page.tsx"
            ? ["GET"]
            : [...readFileSync(p, "utf8").matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)].map(
                (m) => m[1],
              );
        // The side-by-side page needs the runs to put side by side.
        out.push({
          url: url.startsWith("/compare/questions/") ? `${url}?runs=${trace.runId}` : url,
          methods,
          page: f === "page.tsx",
        });
      }
    }
  };
  walk(path.join(ROOT, "app"), []);
  return out;
}

const OPEN = new Set(["/api/auth/signin", "/api/auth/signout"]);
const send = (request: APIRequestContext, method: string, url: string, headers: Record<string, string> = {}) =>
  request.fetch(`${BASE}${url}`, {
    method,
    headers,
    data: method === "GET" ? undefined : "{}",
    maxRedirects: 0,
    failOnStatusCode: false,
  });

test("with a token configured, every page and API route answers 401 without it, and what it should with it", async ({
  request,
}) => {
  const routes = appRoutes().filter((r) => !OPEN.has(r.url));
  expect(routes.length).toBeGreaterThan(20);
  for (const r of routes) {
    for (const method of r.methods) {
      const anonymous = await send(request, method, r.url);
      expect(anonymous.status(), `${method} ${r.url} without a token`).toBe(401);
      expect(await anonymous.text()).not.toContain("Simulated demo"); // nothing of the store
    }
    if (r.methods.includes("GET")) {
      const read = await send(request, "GET", r.url, { Authorization: `Bearer ${READ_TOKEN}` });
      expect([200, 400, 404, 410], `GET ${r.url} with a read token`).toContain(read.status());
      if (r.page) expect(read.status(), `page ${r.url}`).toBe(200);
    }
    for (const method of r.methods.filter((m) => m !== "GET")) {
      const readOnly = await send(request, method, r.url, {
        Authorization: `Bearer ${READ_TOKEN}`,
        "Content-Type": "application/json",
      });
      expect(readOnly.status(), `${method} ${r.url} with a read token`).toBe(403);
      const written = await send(request, method, r.url, {
        Authorization: `Bearer ${WRITE_TOKEN}`,
        "Content-Type": "application/json",
      });
      expect([200, 400, 404, 409, 410], `${method} ${r.url} with a write token`).toContain(written.status());
    }
  }
  const headers = (await send(request, "GET", "/", { Authorization: `Bearer ${READ_TOKEN}` })).headers();
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).not.toContain("unsafe-eval");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
});

test("a cross-origin POST is refused whatever its content type, even with a valid token", async ({ request }) => {
  for (const contentType of [
    "text/plain",
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
  ]) {
    for (const origin of [
      { Origin: "http://evil.example" },
      { "Sec-Fetch-Site": "cross-site" },
      { Origin: "null" },
    ] as Record<string, string>[]) {
      // /api/ingest and /v1/traces check access themselves, outside the proxy (lib/auth/gate.ts).
      for (const url of ["/api/reruns", "/api/ingest", "/v1/traces"]) {
        const r = await send(request, "POST", url, {
          Authorization: `Bearer ${WRITE_TOKEN}`,
          "Content-Type": contentType,
          ...origin,
        });
        expect(r.status(), `${url} ${contentType} ${JSON.stringify(origin)}`).toBe(403);
      }
    }
  }
});

test("sign in once in the browser; a page on another origin cannot make that browser start a rerun", async ({
  page,
}) => {
  await page.goto(`${BASE}/experiments`);
  await expect(page.getByLabel("Access token")).toBeVisible();
  await expectAccessible(page); // the sign-in page
  await page.getByLabel("Access token").fill("wrong-token-wrong-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toContainText("not valid");
  await page.getByLabel("Access token").fill(WRITE_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${BASE}/experiments`);
  const cookie = (await page.context().cookies()).find((c) => c.name === "metron_session")!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  expect(cookie.value).not.toContain(WRITE_TOKEN);

  const trace = one<{ id: string }>("SELECT id FROM traces LIMIT 1");
  const jobs = () => one<{ n: number }>("SELECT count(*) AS n FROM jobs").n;
  const before = jobs();
  const body = JSON.stringify({ traceId: trace.id, provider: "simulated", model: "sim-careful", variant: "oracle" });
  // Same site (127.0.0.1), another origin (port): the session cookie goes along, so only the Origin check stops it.
  const evil = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" })
      .end(`<!doctype html><form id="f" method="post" enctype="text/plain" action="${BASE}/api/reruns"><input name='${body.slice(0, -1)},"x":"' value='"}'></form>
      <script>fetch("${BASE}/api/reruns", { method: "POST", mode: "no-cors", credentials: "include", headers: { "Content-Type": "text/plain" }, body: ${JSON.stringify(body)} }).finally(() => document.getElementById("f").submit());</script>`);
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
  try {
    const attacker = await page.context().newPage();
    const posted = attacker.waitForResponse(
      (r) =>
        r.url().endsWith("/api/reruns") && r.request().method() === "POST" && r.request().resourceType() === "document",
    );
    await attacker.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`);
    expect((await posted).status()).toBe(403);
    expect(jobs()).toBe(before);
    // The same request from Metron's own page goes through.
    const own = await page.evaluate(
      async (b) =>
        (await fetch("/api/reruns", { method: "POST", headers: { "Content-Type": "application/json" }, body: b }))
          .status,
      body,
    );
    expect(own).toBe(200);
    expect(jobs()).toBe(before + 1);
  } finally {
    evil.close();
  }
});

test("signing out ends the session on the server: a copy of its cookie stops working", async ({ page, request }) => {
  await page.goto(`${BASE}/experiments`);
  await page.getByLabel("Access token").fill(READ_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${BASE}/experiments`);
  const cookie = (await page.context().cookies()).find((c) => c.name === "metron_session")!;
  const withCookie = () =>
    request.fetch(`${BASE}/api/export/overview.csv`, {
      headers: { Cookie: `metron_session=${cookie.value}` },
      failOnStatusCode: false,
    });
  expect((await withCookie()).status()).toBe(200);
  // Signed out, the redirect to / asks for a token again; and a copy of the cookie no longer works anywhere.
  const out = await page.evaluate(async () => (await fetch("/api/auth/signout", { method: "POST" })).status);
  expect(out).toBe(401);
  expect((await withCookie()).status()).toBe(401);
});

test("a request under another host name (DNS rebinding) is refused with 421, before any token is asked for", async () => {
  const get = (host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${BASE}/api/export/overview.csv`, { headers: { Host: host } }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
  const rebound = await get(`rebind.attacker.example:${SECURE_PORT}`);
  expect(rebound.status).toBe(421);
  expect(rebound.body).toContain("METRON_ALLOWED_HOSTS");
  expect((await get(`localhost:${SECURE_PORT}`)).status).toBe(401); // a known host: asked for its token
});
