/** A run's tool → role mapping, as given at upload (JSON: {"tool_name": "schema_exploration", …}). */
import { z } from "zod";
import { stepRoles, type RoleMap } from "./classify-step";

const roleMapSchema = z.record(z.string().min(1), z.enum(stepRoles));

export function parseRoleMap(text: string): { ok: true; roles: RoleMap } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${(e as Error).message}` };
  }
  const r = roleMapSchema.safeParse(json);
  if (!r.success)
    return {
      ok: false,
      error: r.error.issues.map((i) => `${i.path.join(".") || "(mapping)"}: ${i.message}`).join("; "),
    };
  return { ok: true, roles: r.data };
}
