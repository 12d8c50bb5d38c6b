/** Number formatting shared by tables and cards. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

export function formatTokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return n.toLocaleString("en-US");
}

export function formatPercent(share: number | null, digits = 1): string {
  return share === null || Number.isNaN(share) ? "—" : `${(share * 100).toFixed(digits)}%`;
}

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}
