/**
 * Secrets kept out of traces, logs, pages and event streams: every configured key (the provider keys, access
 * tokens, and any environment variable named like a key, token, secret or password) and anything shaped like a
 * bearer token or an API key is replaced by "[redacted]" before text leaves the agent loop. A provider or a proxy
 * that echoes its key in an error message is the case this exists for.
 */
const NAMED = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD)(?:_|$)/i;
const SHAPES = [
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, // OpenAI-, Anthropic- and similar keys
  /\bxox[abprs]-[A-Za-z0-9-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
];

function configuredSecrets(): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(process.env)) {
    if (value && value.length >= 8 && NAMED.test(name) && !/^(?:true|false|\d+)$/i.test(value)) out.add(value);
  }
  // Longest first, so a key that contains another is replaced whole.
  return [...out].sort((a, b) => b.length - a.length);
}

export function scrubSecrets(text: string): string {
  let out = text;
  for (const secret of configuredSecrets()) if (out.includes(secret)) out = out.split(secret).join("[redacted]");
  for (const shape of SHAPES) out = out.replace(shape, "[redacted]");
  return out;
}

/** A JSON-able value with every string scrubbed. */
export function scrubValue<T>(value: T): T {
  return JSON.parse(scrubSecrets(JSON.stringify(value))) as T;
}
