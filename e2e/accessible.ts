import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** Runs axe on the page as it is and fails on any serious or critical violation, naming it and where. */
export async function expectAccessible(page: Page): Promise<void> {
  // Next streams a page's metadata after its first content: the title arrives a moment later, so wait for it
  // (a page whose title never comes still fails here).
  await expect(page).toHaveTitle(/\S/);
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join(" | ")}`,
    );
  expect(serious, `accessibility of ${page.url()}`).toEqual([]);
}
