/**
 * The layer table is enforced: for every room, a probe file in it imports one real module of every room (as a value,
 * then as a type), and ESLint must flag exactly the value imports the table forbids — no more, no fewer.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import parser from "@typescript-eslint/parser";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { LAYERS, layerConfig } from "../../eslint.layers.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const folderOf = (room: string): string =>
  room === "queries" ? "lib/db/queries" : room === "app" ? "app" : room === "components" ? "components" : `lib/${room}`;

/** A module of the room to import (the first source file found, not a test). */
function moduleOf(room: string): string {
  const walk = (dir: string): string | undefined => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) {
        if (room === "db" && name === "queries") continue;
        const found = walk(full);
        if (found) return found;
      } else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts")) return full;
    }
    return undefined;
  };
  const file = walk(path.join(root, folderOf(room)));
  if (!file) throw new Error(`no module in ${room}`);
  return (
    "@/" +
    path
      .relative(root, file)
      .replace(/\.tsx?$/, "")
      .replace(/\/index$/, "/index")
  );
}

const rooms = [...Object.keys(LAYERS as Record<string, string[]>)];
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ languageOptions: { parser } }, layerConfig],
});

describe("the layer table (eslint.layers.mjs) fails the lint on every arrow it does not allow", () => {
  it.each(rooms)("from %s", async (from) => {
    const targets = rooms.filter((to) => to !== from);
    const lines = targets.map((to, i) => `import * as m${i} from "${moduleOf(to)}";`);
    const types = targets.map((to, i) => `import type * as t${i} from "${moduleOf(to)}";`);
    const text = [...lines, ...types, `export const all = [${targets.map((_, i) => `m${i}`).join(", ")}];`].join("\n");
    const probe = path.join(root, folderOf(from), "layer-probe.ts");
    const [result] = await eslint.lintText(text, { filePath: probe });
    expect(result.messages.filter((m) => m.fatal)).toEqual([]);
    const flagged = new Set(
      result.messages.filter((m) => m.ruleId === "boundaries/dependencies").map((m) => targets[m.line - 1]),
    );
    const allowed = new Set((LAYERS as Record<string, string[]>)[from]);
    const forbidden = targets.filter((to) => !allowed.has(to));
    expect([...flagged].sort()).toEqual(forbidden.sort());
    // type imports (the second half of the probe) cross every boundary
    expect(result.messages.filter((m) => m.line > targets.length)).toEqual([]);
  });
});
