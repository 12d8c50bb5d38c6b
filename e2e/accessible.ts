import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * Runs axe on the page and fails on any serious or critical violation, naming it and where. Next streams a page's
 * metadata after its first content, and a refresh (after an import, an upload) renders the title again: for a moment
 * the document has none. So the check is retried for a few seconds; a violation that stays fails with the last list.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await expect(async () => {
    await expect(page).toHaveTitle(/\S/, { timeout: 2_000 });
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
  }).toPass({ timeout: 15_000 });
}
