import { expect, type Page } from "@playwright/test";

/**
 * Waits until a question page's keys work: the question navigation (j/k) and the label panel (0–9, o) mark
 * themselves `data-keys="ready"` once their listeners are in place. A key pressed before hydration goes nowhere, and
 * a loaded machine can take seconds to hydrate the page that the server's HTML already shows.
 */
export async function keysReady(page: Page): Promise<void> {
  await expect(page.locator('nav[aria-label="Questions"][data-keys="ready"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="label-panel"][data-keys="ready"]')).toHaveCount(1);
}
