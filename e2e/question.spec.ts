import { expect, test } from "@playwright/test";
import { expectAccessible } from "./accessible";
import { keysReady } from "./keys";

test("the question page: failing question, hostile content as text, deep link to a step, table chips, j to the next failing", async ({
  page,
}) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });

  await page.goto("/");
  await page.getByTestId("runs-table").getByRole("link", { name: "e2e Sophrosyne", exact: true }).click();
  const failing = page.getByTestId("traces-table").locator("tr", { hasText: "wrong" }).first();
  await expect(failing).toContainText("5");
  await failing.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\/5$/);

  // Hostile content is shown as text.
  await expect(page.getByTestId("question-text")).toContainText("<script>alert('question')</script>");
  await expect(page.getByTestId("step-row-1")).toContainText("<img src=x onerror=alert(3)>");
  await page.getByTestId("step-row-1").click();
  await expect(page.getByTestId("step-detail-1")).toContainText("<img src=x onerror=alert(5)> javascript:alert(6)");
  await page.getByTestId("step-row-2").click();
  await expect(page.getByTestId("step-detail-2")).toContainText('<a href="javascript:alert(9)">x</a>');
  await expect(page.getByTestId("final-sql")).toContainText("<script>alert(1)</script>");
  expect(await page.locator("main img, main script:not([src]), a[href^='javascript']").count()).toBe(0);
  expect(dialogs).toEqual([]);

  // j: the next failing question (7), the long one.
  await keysReady(page);
  await page.keyboard.press("j");
  await expect(page).toHaveURL(/\/questions\/7$/);
  await expect(page.getByTestId("trace-metrics")).toContainText("Exploratory / gold");

  // A deep link to a step that is not in the first window opens it and scrolls it into view.
  await page.goto(page.url() + "?step=251");
  const detail = page.getByTestId("step-detail-251");
  await expect(detail).toBeVisible();
  await expect(detail).toBeInViewport();
  await expect(detail).toContainText("row 250"); // its result: step 251 is the 250th probe
  await page.screenshot({ path: "e2e/screenshots/question-deep-link.png" });
  await expectAccessible(page);
  await page.reload();
  await expect(page.getByTestId("step-detail-251")).toBeInViewport();

  // A chip highlights the steps that touched its table.
  await page.goto(page.url().replace(/\?.*$/, ""));
  await page.getByTestId("table-strip").locator("[data-table='konzert']").click();
  await expect(page.getByTestId("table-selection")).toContainText("konzert: touched by");
  await expect(page.locator("[data-highlighted='true']").first()).toBeVisible();
  const highlighted = await page.locator("[data-highlighted='true']").allInnerTexts();
  expect(highlighted.length).toBeGreaterThan(3);
  expect(highlighted.every((t) => t.includes("konzert"))).toBe(true);
  await page.screenshot({ path: "e2e/screenshots/question-page.png", fullPage: true });
  await expectAccessible(page);

  await keysReady(page);
  await page.keyboard.press("j");
  await expect(page).toHaveURL(/\/questions\/23$/);
  await expect(page.getByTestId("sql-diff")).toContainText("+ 1");
  // The legend is a line above the diff, not run into its first word.
  const legend = (await page.getByTestId("sql-diff-legend").boundingBox())!;
  const body = (await page.getByTestId("sql-diff-body").boundingBox())!;
  expect(body.y).toBeGreaterThanOrEqual(legend.y + legend.height - 1);
  await page.getByRole("button", { name: "Run both queries and compare their results" }).click();
  await expect(page.getByTestId("results-compare")).toContainText("missing");
  await page.screenshot({ path: "e2e/screenshots/question-results.png", fullPage: true });
  await expectAccessible(page);
  expect(dialogs).toEqual([]);
});

test("a window of steps that fails to load says so in its rows, and Retry loads it", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("runs-table").getByRole("link", { name: "e2e Sophrosyne", exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/[^/?]+/);
  const runUrl = page.url().replace(/\?.*$/, "");
  // The second window of the long question's steps fails once (a server restarting, a dropped connection).
  let failures = 0;
  await page.route(/\/api\/traces\/[^/]+\/steps\?from=[1-9]/, async (route) => {
    if (failures++ === 0) return route.fulfill({ status: 503, body: JSON.stringify({ error: "restarting" }) });
    return route.continue();
  });
  await page.goto(`${runUrl}/questions/7`);
  const timeline = page.getByTestId("timeline");
  await expect(page.getByTestId("step-row-1")).toBeVisible();
  await timeline.evaluate((el) => el.scrollBy(0, 210 * 34));
  const retry = page.getByTestId("timeline-retry").first();
  await expect(page.getByTestId("timeline-retry")).toHaveCount(1); // once for the window, not on each of its rows
  await expect(page.getByRole("alert").filter({ hasText: "could not be loaded" })).toContainText(
    /Steps 200–301 could not be loaded \(HTTP 503: restarting\)/,
  );
  await expect(timeline.getByText("210 — not loaded")).toBeVisible();
  // Said above the steps, in view with them (not on a row scrolled past).
  await expect(retry).toBeInViewport();
  await page.screenshot({ path: "e2e/screenshots/timeline-retry.png" });
  await retry.click();
  await expect(page.getByTestId("timeline-retry")).toHaveCount(0);
  await expect(timeline.locator("[data-testid^='step-row-']").last()).toBeVisible();
  expect(failures).toBeGreaterThanOrEqual(2);
});

test("computed directives explain each table: the phrase that kept it and which half of the index named it", async ({
  page,
}) => {
  // The simulated demo's Sophrosyne runs carry the computed strategy's explanation (BM25 only, the shipped default).
  await page.goto("/?system=Sophrosyne&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\//);
  const panel = page.getByTestId("directive-explanation");
  await expect(panel.locator("summary")).toContainText(/Why these directives: \d+ tables? kept, \d+ flagged/);
  await panel.locator("summary").click();
  await expect(panel).toContainText("BM25 only (no semantic half)");
  // The demo's directives were computed with the no-evidence rule on, and the trace says so.
  await expect(panel.getByTestId("no-evidence-rule")).toContainText(
    "When none of these met any table, nothing is flagged",
  );
  await expect(panel.getByTitle("named by the keyword half of the index (BM25)").first()).toBeVisible();
  await expect(panel).toContainText("Flagged (no phrase, name, value or bridge kept them):");
  await page.screenshot({ path: "e2e/screenshots/question-directives.png", fullPage: true });
  await expectAccessible(page);
  // A phrase that hit another table's key column says which: "customer" in orders.customer_id keeps the customers.
  await page.goto(page.url().replace(/\/questions\/[^/?#]+/, "/questions/20"));
  await expect(page.getByText("How many orders did customer 42 place?").first()).toBeVisible();
  await page.getByTestId("directive-explanation").locator("summary").click();
  const through = page.getByTestId("directive-through-key").first();
  await expect(through).toContainText("through the key orders.customer_id");
  await expect(through.locator("xpath=ancestor::li")).toContainText("customers");
});

test("the simulated demo's dataset is labelled simulated, and a run's outcomes show without scrolling sideways", async ({
  page,
}) => {
  await page.goto("/datasets?dataset=demo-retail");
  await expect(page.getByRole("link", { name: /demo-retail/ }).getByText("simulated")).toBeVisible();
  await expect(page.getByText("Generated by Metron's demo")).toBeVisible();
  await page.goto("/experiments");
  await expect(page.getByRole("heading", { name: /demo-retail/ }).getByText("simulated")).toBeVisible();
  // The run's table is wider than the page: the outcome sits beside the question, inside the visible part.
  await page.goto("/?system=Sophrosyne&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  const table = page.getByTestId("traces-table");
  const badge = table
    .locator("tbody tr")
    .first()
    .getByText(/^(correct|wrong result)$/);
  // Wholly in view: the table's scrolling frame clips what lies beyond its edge.
  await expect(badge).toBeInViewport({ ratio: 1 });
  // A trace of a few milliseconds reads in milliseconds, not "0 sec".
  await table.locator("tbody tr").first().getByRole("link").first().click();
  // The question page's first request, under the whole suite's load, took over 5 s once: what is tested here is how
  // the duration reads, so the page is given the time to arrive.
  await expect(page).toHaveURL(/\/questions\//, { timeout: 30_000 });
  await expect(page.getByText("Duration", { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Duration", { exact: true }).locator("..")).toContainText(/\d+(\.\d)? ms/);
});
