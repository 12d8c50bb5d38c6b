import type { Page } from "@playwright/test";

/** Scrolls to a page's charts, which load when they come into view (components/charts/load-when-visible.tsx). */
export async function showCharts(page: Page): Promise<void> {
  const placeholder = page.getByText(/charts load as you scroll here/);
  if (await placeholder.count()) await placeholder.first().scrollIntoViewIfNeeded();
}
