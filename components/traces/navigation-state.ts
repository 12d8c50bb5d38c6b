/**
 * Whether the question page is moving to another question (issue 30: a label key pressed while the next question
 * was loading went to the question still shown, under a URL that already named the next one). The question
 * navigation sets it while its transition is pending; the label panel refuses keys meanwhile, visibly.
 */
type Listener = (navigating: boolean) => void;

let navigating = false;
const listeners = new Set<Listener>();

export function setNavigating(value: boolean): void {
  if (navigating === value) return;
  navigating = value;
  for (const l of listeners) l(value);
}

export function isNavigating(): boolean {
  return navigating;
}

export function onNavigating(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
