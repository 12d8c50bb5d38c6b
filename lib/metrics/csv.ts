/** CSV text (RFC 4180): fields with a comma, quote or line break are quoted, quotes doubled. Pure. */
export function toCsv(columns: string[], rows: unknown[][]): string {
  const field = (v: unknown) => {
    if (v === null || v === undefined) return "";
    const s = typeof v === "object" ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [columns, ...rows].map((r) => r.map(field).join(",")).join("\r\n") + "\r\n";
}

export function csvResponse(fileName: string, csv: string): Response {
  return new Response(csv, { headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${fileName.replace(/[^\w.-]+/g, "_")}"` } });
}
