/** Reading numeric limits from the environment, with an error that names the variable. */
export function positiveNumber(name: string, fallback: number, { integer = true } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new Error(`${name} must be a positive ${integer ? "integer" : "number"}, got "${raw}"`);
  return n;
}

/** A limit that may be 0 (a delay, a retry count), with an error that names the variable. */
export function nonNegativeNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number ≥ 0, got "${raw}"`);
  return n;
}
