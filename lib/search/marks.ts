/** Marks around a highlighted match in a snippet (private characters, never HTML). */
export const MARK_START = "\u0002";
export const MARK_END = "\u0003";
