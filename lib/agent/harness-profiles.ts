/**
 * Harness profiles (issue 31): how to start a researcher's own agent harness non-interactively, read only from the
 * server's configuration — the JSON file named by `METRON_HARNESSES`, else `metron.harnesses.json` in the working
 * directory — never from a request: a browser chooses among them by name. Running one is lib/agent/harnesses.ts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

const timeoutS = z
  .number()
  .positive()
  .max(24 * 3600)
  .optional();
/** Names of the server's environment variables handed to the harness (its provider key, say); nothing else is. */
const passEnv = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional();
const extraEnv = z.record(z.string(), z.string()).optional();
/** What every kind of profile may say: its wall time, the server variables it gets, fixed variables. */
const common = { timeoutS, passEnv, env: extraEnv };

const profileSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("command"),
      command: z.array(z.string()).min(1),
      model: z.string().optional(),
      ...common,
    })
    .strict(),
  z
    .object({
      kind: z.literal("opencode"),
      bin: z.string().optional(),
      /** `provider/model`, as opencode.json's `model`. */
      model: z.string(),
      /** opencode.json's `provider` block (a custom OpenAI-compatible provider, say). */
      provider: z.record(z.string(), z.unknown()).optional(),
      ...common,
    })
    .strict(),
  z
    .object({
      kind: z.literal("claude-code"),
      bin: z.string().optional(),
      model: z.string().optional(),
      ...common,
    })
    .strict(),
  z
    .object({
      kind: z.literal("codex"),
      bin: z.string().optional(),
      model: z.string(),
      /** `model_provider` and its `[model_providers.<id>]` table (name, base_url, wire_api, env_key, …). */
      providerId: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/)
        .optional(),
      provider: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      /** `[features]` of config.toml (Codex 0.171 needs `incremental_tools = false` for an MCP server's tools). */
      features: z.record(z.string(), z.boolean()).optional(),
      /** More config.toml lines, appended at its end as written (tables of their own: `[profiles.x]`, …). */
      config: z.array(z.string()).optional(),
      ...common,
    })
    .strict(),
]);

export type HarnessProfile = z.infer<typeof profileSchema>;
export type HarnessKind = HarnessProfile["kind"];
export const harnessKinds: HarnessKind[] = ["opencode", "claude-code", "codex", "command"];

export const DEFAULT_TIMEOUT_S = 600;
const DEFAULT_BIN: Record<Exclude<HarnessKind, "command">, string> = {
  opencode: "opencode",
  "claude-code": "claude",
  codex: "codex",
};

export class HarnessConfigError extends Error {}

/** The profiles file: `METRON_HARNESSES`, else `metron.harnesses.json` in the working directory; null when neither. */
export function harnessesFile(): string | null {
  if (process.env.METRON_HARNESSES) return path.resolve(process.env.METRON_HARNESSES);
  const local = path.resolve("metron.harnesses.json");
  return existsSync(local) ? local : null;
}

/** The configured profiles, by name; a file that does not parse is an error naming the profile and field. */
export function loadHarnesses(): Record<string, HarnessProfile> {
  const file = harnessesFile();
  if (!file) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new HarnessConfigError(`${file}: ${(e as Error).message}`);
  }
  if (!json || typeof json !== "object" || Array.isArray(json))
    throw new HarnessConfigError(`${file}: expected an object of harness profiles by name`);
  const out: Record<string, HarnessProfile> = {};
  for (const [name, value] of Object.entries(json)) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name))
      throw new HarnessConfigError(`${file}: profile name "${name}": letters, digits, _ . - only`);
    const r = profileSchema.safeParse(value);
    if (!r.success)
      throw new HarnessConfigError(
        `${file}: profile "${name}": ${r.error.issues.map((i) => `${i.path.join(".") || "(profile)"}: ${i.message}`).join("; ")}`,
      );
    out[name] = r.data;
  }
  return out;
}

export function harnessProfile(name: string): HarnessProfile {
  const p = loadHarnesses()[name];
  if (!p) {
    const known = Object.keys(loadHarnesses());
    throw new HarnessConfigError(
      `no harness profile "${name}"${known.length ? ` (configured: ${known.join(", ")})` : ` (none configured: ${harnessesFile() ?? "set METRON_HARNESSES to a profiles file"})`}`,
    );
  }
  return p;
}

/** The program a profile starts. */
export function harnessBin(p: HarnessProfile): string {
  return p.kind === "command" ? p.command[0] : (p.bin ?? DEFAULT_BIN[p.kind]);
}

function onPath(bin: string): string | null {
  if (bin.includes("/")) return existsSync(bin) ? path.resolve(bin) : null;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const f = path.join(dir, bin);
    try {
      if (statSync(f).isFile()) return f;
    } catch {
      /* not here */
    }
  }
  return null;
}

const versions = new Map<string, string | null>();

/** Whether the profile's program is installed, and its version (`--version`, once per process). */
export function harnessInstalled(p: HarnessProfile): {
  installed: boolean;
  path: string | null;
  version: string | null;
} {
  const bin = onPath(harnessBin(p));
  if (!bin) return { installed: false, path: null, version: null };
  if (p.kind === "command") return { installed: true, path: bin, version: null };
  if (!versions.has(bin)) {
    const r = spawnSync(/*turbopackIgnore: true*/ bin, ["--version"], {
      encoding: "utf8",
      timeout: 20_000,
      env: { PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
    });
    versions.set(bin, r.status === 0 ? r.stdout.trim().split("\n")[0].slice(0, 80) : null);
  }
  return { installed: true, path: bin, version: versions.get(bin) ?? null };
}

/** The model a profile's runs are named by. */
export function harnessModel(name: string, p: HarnessProfile): string {
  return `${p.kind === "command" ? name : p.kind}:${p.model ?? "default"}`;
}

export interface HarnessListing {
  name: string;
  kind: HarnessKind;
  /** The model its runs are named by (`kind:model`). */
  model: string;
  program: string;
  installed: boolean;
  version: string | null;
  timeoutS: number;
}

/** The configured profiles for the settings page and the sweep form; a broken file is reported, not thrown. */
export function listHarnesses(): { file: string | null; profiles: HarnessListing[]; error: string | null } {
  const file = harnessesFile();
  try {
    const profiles = Object.entries(loadHarnesses()).map(([name, p]) => {
      const i = harnessInstalled(p);
      return {
        name,
        kind: p.kind,
        model: harnessModel(name, p),
        program: harnessBin(p),
        installed: i.installed,
        version: i.version,
        timeoutS: p.timeoutS ?? DEFAULT_TIMEOUT_S,
      };
    });
    return { file, profiles, error: null };
  } catch (e) {
    return { file, profiles: [], error: (e as Error).message };
  }
}
