import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The charts' typeface (Inter, SIL Open Font License, from @fontsource/inter): served to the page, and embedded in
 * exported SVG figures so they look the same on any machine.
 */
const FILES: Record<string, string> = {
  "inter-400.woff2": "inter-latin-400-normal.woff2",
  "inter-600.woff2": "inter-latin-600-normal.woff2",
};

export async function GET(_request: Request, { params }: RouteContext<"/fonts/[file]">) {
  const name = FILES[(await params).file];
  if (!name) return new Response("no such font", { status: 404 });
  const dir = join(process.cwd(), "node_modules", "@fontsource", "inter", "files");
  const bytes = await readFile(join(dir, name));
  return new Response(new Uint8Array(bytes), {
    headers: { "Content-Type": "font/woff2", "Cache-Control": "public, max-age=31536000, immutable" },
  });
}
