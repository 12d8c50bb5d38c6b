import { expect, type Page } from "@playwright/test";

/**
 * Scrolls to a run page's charts, which load when they come into view (components/charts/load-when-visible.tsx): once
 * every streamed section of the page has arrived (the run page's sections stream in apart, and one arriving above
 * would push the charts back out of view), to their section's heading, which is always there (the placeholder below
 * it goes away as the charts load), then waits for the charts.
 */
export async function showCharts(page: Page): Promise<void> {
  const heading = page.locator("#run-charts-heading");
  await heading.waitFor();
  await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0);
  await heading.scrollIntoViewIfNeeded();
  await page.getByTestId("run-charts").waitFor();
}
