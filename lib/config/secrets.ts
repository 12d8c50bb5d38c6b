/**
 * Secrets kept out of traces, logs, pages, event streams and exported spans: every configured key (the provider
 * keys, access tokens, and any environment variable named like a key, token, secret or password) and anything shaped
 * like a bearer token or an API key is replaced by "[redacted]". One scrubber for what leaves (the agent loop's
 * events, traces and OpenTelemetry spans) and what enters (the OTLP receiver, every foreign file's traces). A
 * configured key is also found transformed: URL-encoded, escaped inside JSON, in base64, or cut short to its first
 * 16 characters (an error message that truncates it). A provider or a proxy that echoes its key is the case this
 * exists for.
 */
const NAMED = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD)(?:_|$)/i;
const SHAPES = [
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, // OpenAI-, Anthropic- and similar keys
  /\bxox[abprs]-[A-Za-z0-9-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
];

/** How a configured key may appear in text besides itself. */
function forms(value: string): string[] {
  const out = [
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value).toString("base64"),
  ];
  if (value.length >= 24) out.push(value.slice(0, 16));
  return out;
}

let cached: { key: string; secrets: string[] } | undefined;

function configuredSecrets(): string[] {
  const named = Object.entries(process.env).filter(
    ([name, value]) => value && value.length >= 8 && NAMED.test(name) && !/^(?:true|false|\d+)$/i.test(value),
  );
  const key = named.map(([n, v]) => `${n}=${v}`).join("\u0000");
  if (cached?.key === key) return cached.secrets;
  const out = new Set<string>();
  for (const [, value] of named) for (const f of forms(value!)) out.add(f);
  // Longest first, so a key that contains another is replaced whole.
  cached = { key, secrets: [...out].sort((a, b) => b.length - a.length) };
  return cached.secrets;
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
