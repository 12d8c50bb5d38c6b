import { expect, test } from "@playwright/test";
import { expectAccessible } from "./accessible";
import { keysReady } from "./keys";

test("search the demo for describe_table calls on payments in wrong traces and open a hit at its step", async ({
  page,
}) => {
  await page.goto("/");
  await page.getByRole("searchbox", { name: "Search traces" }).fill("tool:describe_table table:payments outcome:wrong");
  await page.getByRole("searchbox", { name: "Search traces" }).press("Enter");
  await expect(page).toHaveURL(/\/search\?q=tool%3Adescribe_table/);
  await expect(page.getByTestId("search-total")).toContainText(/\d+ traces?/);
  const hit = page.getByTestId("search-hits").locator("li").first();
  await expect(hit).toContainText("describe_table");
  await expect(hit).toContainText("wrong result");
  await page.screenshot({ path: "e2e/screenshots/search.png", fullPage: true });
  await expectAccessible(page);
  const step = hit.getByRole("link", { name: /^step \d+$/ }).first();
  const seq = (await step.textContent())!.replace("step ", "");
  await step.click();
  await expect(page).toHaveURL(new RegExp(`step=${seq}`));
  await expect(page.getByTestId(`step-detail-${seq}`)).toContainText("payments");
  // Label that step; the label is then a search term.
  await page.getByLabel(`Label step ${seq}`).fill("wrong table");
  await page.getByRole("button", { name: "Label step" }).click();
  await expect(page.getByTestId(`step-detail-${seq}`)).toContainText("labelled “wrong table”");
  await page.goto(`/search?q=${encodeURIComponent('label:"wrong table" tool:describe_table')}`);
  await expect(page.getByTestId("search-hits").locator(":scope > li")).toHaveCount(1);
});

test("label three failing questions by keyboard; Experiments counts them per system and model", async ({
  page,
  request,
}) => {
  await page.goto("/?system=No+Directives&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await page.getByLabel("failing only").check();
  await expect(page).toHaveURL(/failing=true/);
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\//);
  const join = page.getByTestId("label-panel").getByRole("button", { name: /join/ });
  for (let i = 0; i < 3; i++) {
    const url = page.url();
    await expect(join).toHaveAttribute("aria-pressed", "false");
    await keysReady(page);
    await page.keyboard.press("4"); // "join"
    await expect(join).toHaveAttribute("aria-pressed", "true");
    if (i < 2) {
      await page.keyboard.press("j"); // the next failing question
      await expect(page).not.toHaveURL(url);
      // Until the next question shows, a label key is refused (the test below): a user waits for it, so does this.
      await expect(page.getByTestId("question-loading")).toHaveCount(0);
    }
  }
  await page.screenshot({ path: "e2e/screenshots/labels.png", fullPage: true });
  await expectAccessible(page);

  await page.goto("/experiments?dataset=demo-retail");
  const causes = page.getByTestId("failure-causes");
  await expect(causes).toBeVisible();
  await expect(causes).toContainText("Failure causes");
  const csv = await (await request.get("/api/export/causes.csv?dataset=demo-retail")).text();
  expect(csv).toContain("demo-retail,No Directives,sim-hasty,join,3");
  await expectAccessible(page);
  // The run's question table filters by the label.
  await page.goto("/?system=No+Directives&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await page.getByTestId("traces-table").getByRole("button", { name: "join" }).first().click();
  await expect(page).toHaveURL(/label=join/);
  await expect(page.getByTestId("traces-table").locator("tbody tr")).toHaveCount(3);
});

test("keyboard triage under load: a label key pressed while the next question loads is refused visibly, never filed on the question left", async ({
  page,
}) => {
  await page.goto("/?system=Sophrosyne&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await page.getByLabel("failing only").check();
  await expect(page).toHaveURL(/failing=true/);
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\//);
  const first = page.url();
  const position = await page.getByTestId("question-position").textContent();
  const wrongTable = page.getByTestId("label-panel").getByRole("button", { name: /wrong table/ });
  await expect(wrongTable).toHaveAttribute("aria-pressed", "false");
  // The next question's page takes 1.5 s to arrive (a loaded server).
  await page.route(/\/questions\//, async (route) => {
    if (route.request().headers()["rsc"]) await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await keysReady(page);
  await page.keyboard.press("j");
  await expect(page.getByTestId("question-loading")).toBeVisible();
  await page.keyboard.press("1"); // "wrong table", while the previous question is still shown
  await expect(page.getByTestId("label-panel").getByRole("alert")).toContainText(
    "not labelled: the next question is still loading",
  );
  await expect(page.getByTestId("question-position")).not.toHaveText(position!);
  await expect(page.getByTestId("question-loading")).toHaveCount(0);
  await page.unroute(/\/questions\//);
  // Now shown: the key labels this question.
  await expect(wrongTable).toHaveAttribute("aria-pressed", "false");
  await page.keyboard.press("1");
  await expect(wrongTable).toHaveAttribute("aria-pressed", "true");
  // The question left has no label from the refused key.
  await page.goto(first);
  await expect(page.getByTestId("label-panel").getByRole("button", { name: /wrong table/ })).toHaveAttribute(
    "aria-pressed",
    "false",
  );
});

test("the side-by-side view of a question across No Directives and Sophrosyne aligns steps and marks the first divergence", async ({
  page,
}) => {
  await page.goto("/?system=No+Directives&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  const noDirectives = new URL(page.url()).pathname.split("/")[2];
  const question = await page
    .getByTestId("traces-table")
    .locator("tbody tr")
    .first()
    .getByRole("link")
    .first()
    .textContent();
  await page.goto("/?system=Sophrosyne&model=sim-hasty");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  const sophrosyne = new URL(page.url()).pathname.split("/")[2];
  await page.goto(`/compare/questions/${encodeURIComponent(question!.trim())}?runs=${noDirectives},${sophrosyne}`);
  const aligned = page.getByTestId("aligned-steps");
  await expect(aligned).toBeVisible();
  await expect(aligned.locator("tbody tr").first()).toHaveAttribute("data-kind", "same"); // both list the tables first
  await expect(aligned.getByTestId("first-divergence")).toHaveCount(1);
  await page.screenshot({ path: "e2e/screenshots/aligned.png", fullPage: true });
  await expectAccessible(page);
});

test("a label shows at once, and a label the server does not save goes back, saying so", async ({ page }) => {
  await page.goto("/?system=Sophrosyne&model=sim-careful");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\//);
  const cause = page.getByTestId("label-panel").getByRole("button", { name: /other/ });
  await expect(cause).toHaveAttribute("aria-pressed", "false");
  // The server action's request is held, then fails: the toggle shows while it is on its way, then goes back.
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  await page.route(/\/questions\//, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await held;
    await route.abort();
  });
  await cause.click();
  await expect(cause).toHaveAttribute("aria-pressed", "true");
  release();
  await expect(page.getByTestId("label-panel").getByRole("alert")).toContainText('"other" not saved');
  await expect(cause).toHaveAttribute("aria-pressed", "false");
  await page.unroute(/\/questions\//);
  await page.reload();
  await expect(page.getByTestId("label-panel").getByRole("button", { name: /other/ })).toHaveAttribute(
    "aria-pressed",
    "false",
  );
});
