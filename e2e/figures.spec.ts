import { expect, test, type Page } from "@playwright/test";
import { showCharts } from "./charts";

/**
 * The colour each system is actually painted in: bars (their fill, or the background of their pattern), legend
 * swatches and chips, read from the drawn SVG. Parts drawn lighter on purpose (output tokens) are left out.
 */
async function paintedColours(page: Page): Promise<[string, string][]> {
  return page.evaluate(() => {
    const paint = (el: Element): string | null => {
      const fill = el.getAttribute("fill");
      const m = fill?.match(/^url\(#(.+)\)$/);
      if (!m) return fill;
      return document.getElementById(m[1])?.querySelector("rect")?.getAttribute("fill") ?? null;
    };
    const out: [string, string][] = [];
    for (const g of document.querySelectorAll("g[data-system][data-base]")) {
      const shape = g.querySelector("path, rect");
      const colour = shape && paint(shape);
      if (colour) out.push([g.getAttribute("data-system")!, colour.toLowerCase()]);
    }
    for (const r of document.querySelectorAll("rect[data-system], circle[data-system]")) {
      const colour = r.tagName === "circle" ? r.getAttribute("fill") : paint(r);
      if (colour) out.push([r.getAttribute("data-system")!, colour.toLowerCase()]);
    }
    return out;
  });
}

function oneColourPerSystem(pairs: [string, string][]) {
  const bySystem = new Map<string, Set<string>>();
  for (const [system, colour] of pairs)
    (bySystem.get(system) ?? bySystem.set(system, new Set()).get(system)!).add(colour);
  for (const [system, colours] of bySystem) expect([system, [...colours]]).toEqual([system, [[...colours][0]]]);
  const colours = [...bySystem.values()].map((c) => [...c][0]);
  expect(new Set(colours).size).toBe(colours.length); // two systems never share a colour
  return bySystem;
}

test("figures: one colour per system in every chart, exports that carry the page's numbers, pages without dead space", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });

  // Experiments: every chart, legend and matrix chip paints a system in the same colour.
  await page.goto("/experiments");
  await expect(page.getByTestId("chart-over").first()).toBeVisible();
  // Recharts draws once it has measured its container.
  await expect(
    page.locator("[data-testid='chart-cost'] g[data-system='Sophrosyne'][data-base]").first(),
  ).toBeAttached();
  const bySystem = oneColourPerSystem(await paintedColours(page));
  expect([...bySystem.keys()]).toEqual(expect.arrayContaining(["No Directives", "Sophrosyne", "Sophrosyne-Oracle"]));
  // Bars of a system in at least three charts of the page, all one colour.
  const bars = await page.locator("g[data-system='Sophrosyne'][data-base]").count();
  expect(bars).toBeGreaterThanOrEqual(6);
  await page.screenshot({ path: "e2e/screenshots/figure-experiments.png", fullPage: true });

  // The LaTeX and Markdown of the spider-de matrix carry the numbers the matrix shows.
  const matrix = page.getByTestId("matrix-spider-de");
  const systems = (await matrix.locator("thead th").allTextContents()).slice(1).map((s) => s.trim());
  const latex = await page.getByTestId("matrix-export-spider-de").getByTestId("latex").textContent();
  const markdown = await page.getByTestId("matrix-export-spider-de").getByTestId("markdown").textContent();
  expect(latex).toContain("\\toprule");
  let checked = 0;
  for (const row of await matrix.locator("tbody tr").all()) {
    const model = (await row.locator("th").innerText()).trim();
    const cells = row.locator("td");
    for (let i = 0; i < systems.length; i++) {
      const text = await cells.nth(i).innerText();
      const [, ex, exNone] = text.match(/EX\s+([\d.]+)%( \(\w[^)]*no interval\))?/) ?? [];
      const [, over, overNone] = text.match(/over-expl\.\s+([\d.]+)%( \(\w[^)]*no interval\))?/) ?? [];
      if (!ex) continue;
      const system = systems[i];
      // The value, then its interval in small type, or nothing where the matrix says there is none.
      const figure = (value: string, none: string | undefined) =>
        new RegExp(`^${value.replace(".", "\\.")}${none ? "$" : " \\{\\\\scriptsize \\["}`);
      const texRow = latex!.split("\n").find((l) => l.startsWith(`${model} & ${system} & `));
      expect(texRow, `${model} × ${system} in the LaTeX`).toBeTruthy();
      const texCells = texRow!.replace(/\\textbf\{([^}]*)\}/g, "$1").split(" & ");
      expect(texCells[2]).toMatch(figure(ex, exNone));
      if (over) expect(texCells[3]).toMatch(figure(over, overNone));
      const mdRow = markdown!.split("\n").find((l) => l.startsWith(`| ${model} | ${system} | `));
      expect(mdRow!.replace(/\*\*/g, "").split(" | ")[2]).toMatch(new RegExp(`^${ex.replace(".", "\\.")}( |$)`));
      checked++;
    }
  }
  expect(checked).toBe(3);
  // The best EX of the dataset is in bold.
  expect(latex).toContain("\\textbf{100.0}");

  // A run page: EX and over-exploration on panels of their own, each axis titled, in the run's system colour.
  await page.goto("/");
  await page.getByTestId("runs-table").getByRole("link", { name: "e2e Sophrosyne", exact: true }).click();
  await showCharts(page); // the run's charts load when they come into view
  await expect(page.getByTestId("chart-ex-difficulty")).toContainText("execution accuracy (%)");
  await expect(page.getByTestId("chart-over-difficulty")).toContainText("over-exploration (%)");
  await expect(page.getByTestId("chart-exploration")).toContainText("exploratory calls");
  await expect(page.locator("[data-testid='chart-tools'] g[data-system][data-base]").first()).toBeAttached();
  const runColours = oneColourPerSystem(await paintedColours(page));
  expect(runColours.get("Sophrosyne")).toEqual(bySystem.get("Sophrosyne"));
  await expect(page.getByTestId("run-summary-export").getByTestId("latex")).toContainText("\\bottomrule", {
    useInnerText: false,
  });
  await page.screenshot({ path: "e2e/screenshots/figure-run.png", fullPage: true });

  // A question page: the timeline fits its steps, columns have headers, final-vs-gold SQL comes before the rerun panel.
  await page.getByTestId("traces-table").getByRole("link", { name: "0", exact: true }).click();
  const timeline = page.getByTestId("timeline");
  await expect(page.getByTestId("timeline-header")).toContainText("tokens");
  await expect(page.getByTestId("timeline-header")).toContainText("time");
  const steps = await timeline.locator("[data-testid^='step-row-']").count();
  const box = await timeline.boundingBox();
  expect(box!.height).toBeLessThanOrEqual(steps * 34 + 24 + 4);
  const order = await page.evaluate(() => {
    const sql = document.querySelector("[data-testid='sql-compare']");
    const rerun = [...document.querySelectorAll("h2")].find((h) => h.textContent?.includes("Rerun this question"));
    return sql && rerun ? sql.compareDocumentPosition(rerun) & Node.DOCUMENT_POSITION_FOLLOWING : -1;
  });
  expect(order).toBeGreaterThan(0);
  await page.screenshot({ path: "e2e/screenshots/figure-question.png", fullPage: true });

  // Side by side: one legend, timelines without empty boxes.
  await page.goto("/compare");
  const picker = page.getByTestId("run-picker");
  for (const name of ["e2e No Directives", "e2e Sophrosyne ·", "e2e Sophrosyne-Oracle"])
    await picker.getByText(name).first().click();
  await picker.getByRole("button", { name: "Compare 3 runs" }).click();
  await expect(page).toHaveURL(/runs=/);
  const runs = new URL(page.url()).searchParams.get("runs");
  await page.goto(`/compare/questions/23?runs=${runs}`);
  await expect(page.getByTestId("side-by-side").getByTestId("timeline")).toHaveCount(3);
  await expect(page.getByTestId("table-strip-legend")).toHaveCount(1);
  for (const t of await page.getByTestId("side-by-side").getByTestId("timeline").all()) {
    await expect(t.locator("[data-testid^='step-row-']").first()).toBeVisible(); // streamed in: measure once drawn
    const n = await t.locator("[data-testid^='step-row-']").count();
    expect((await t.boundingBox())!.height).toBeLessThanOrEqual(n * 34 + 24 + 4);
  }
  await page.screenshot({ path: "e2e/screenshots/figure-side-by-side.png", fullPage: true });
});

test("exported figures keep every text inside their edges: the top tick label, the legend, the source lines", async ({
  page,
}) => {
  await page.goto("/experiments");
  const frame = page.getByTestId("chart-over").first();
  await expect(frame.locator("g[data-system][data-base]").first()).toBeAttached();
  const group = page.getByRole("group", { name: /^Download / }).first();
  const [svgDownload] = await Promise.all([
    page.waitForEvent("download"),
    group.getByRole("button", { name: "SVG" }).click(),
  ]);
  const svg = await (await import("node:fs/promises")).readFile((await svgDownload.path())!, "utf8");
  // The page's typeface (next/font, app/chart-font.ts) travels inside the file: both weights, as WOFF2 data.
  const faces = [
    ...svg.matchAll(
      /@font-face\{font-family:"Inter";font-weight:(\d+);src:url\(data:font\/woff2;base64,([^)]{1000,})\)/g,
    ),
  ];
  expect(faces.map((f) => f[1]).sort()).toEqual(["400", "600"]);
  // Drawn alone in a blank page, each text's box must lie inside the figure's viewBox.
  const blank = await page.context().newPage();
  await blank.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
  // the embedded faces load in a page that has no other copy of them
  const faceStatus = await blank.evaluate(async () => {
    await document.fonts.ready;
    return [...document.fonts].filter((f) => f.status === "loaded").map((f) => `${f.family} ${f.weight}`);
  });
  expect(faceStatus).toContain("Inter 400");
  const report = await blank.evaluate(() => {
    const root = document.querySelector("svg")!;
    const [, , w, h] = root.getAttribute("viewBox")!.split(" ").map(Number);
    const out: string[] = [];
    const rootBox = root.getBoundingClientRect();
    for (const t of root.querySelectorAll("text")) {
      const b = t.getBoundingClientRect();
      if (!t.textContent?.trim() || b.width === 0) continue;
      const x0 = b.left - rootBox.left;
      const y0 = b.top - rootBox.top;
      if (x0 < -0.5 || y0 < -0.5 || x0 + b.width > w + 0.5 || y0 + b.height > h + 0.5)
        out.push(
          `${t.textContent} at ${Math.round(x0)},${Math.round(y0)} ${Math.round(b.width)}×${Math.round(b.height)} in ${w}×${h}`,
        );
    }
    return {
      outside: out,
      sourceLines: root.querySelectorAll("[data-role='source'] text").length,
      texts: root.querySelectorAll("text").length,
    };
  });
  expect(report.outside).toEqual([]);
  expect(report.sourceLines).toBeGreaterThan(0);
  expect(report.texts).toBeGreaterThan(5);
  await blank.screenshot({ path: "e2e/screenshots/figure-export-svg.png" });
  await blank.close();
});
