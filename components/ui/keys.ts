/** Whether a key press belongs to a shortcut: not with a modifier, not while typing in a field. */
export function isShortcut(e: KeyboardEvent): boolean {
  return !(
    e.metaKey ||
    e.ctrlKey ||
    e.altKey ||
    (e.target instanceof HTMLElement && /INPUT|TEXTAREA|SELECT/.test(e.target.tagName))
  );
}
