import type { Page } from "@playwright/test";

/**
 * Scrolls to a page's charts, which load when they come into view (components/charts/load-when-visible.tsx). Waits
 * for the page to show either the placeholder or the charts first, so it also works right after a navigation.
 */
export async function showCharts(page: Page): Promise<void> {
  const placeholder = page.getByText(/charts load as you scroll here/);
  await placeholder.or(page.getByTestId("run-charts")).first().waitFor();
  if (await placeholder.count()) await placeholder.first().scrollIntoViewIfNeeded();
  await page.getByTestId("run-charts").waitFor();
}
