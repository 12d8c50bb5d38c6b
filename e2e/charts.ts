import type { Page } from "@playwright/test";

/**
 * Scrolls to a run page's charts, which load when they come into view (components/charts/load-when-visible.tsx): to
 * their section's heading, which is always there (the placeholder below it goes away as the charts load), then waits
 * for the charts.
 */
export async function showCharts(page: Page): Promise<void> {
  const heading = page.locator("#run-charts-heading");
  await heading.waitFor();
  await heading.scrollIntoViewIfNeeded();
  await page.getByTestId("run-charts").waitFor();
}
