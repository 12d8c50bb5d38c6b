/** The sign-in page the proxy answers with (HTTP 401) when a token is required: plain HTML, nothing of the store. */
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function signInPage(next: string, message?: string): string {
  const target = next.startsWith("/") && !next.startsWith("//") ? next : "/";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Metron</title><meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;background:#fafafa;color:#18181b;display:flex;justify-content:center;padding-top:12vh}form{background:#fff;border:1px solid #e4e4e7;border-radius:8px;padding:24px;width:340px}label{display:block;font-size:14px;margin:12px 0 4px}input{width:100%;box-sizing:border-box;padding:6px;border:1px solid #d4d4d8;border-radius:4px}button{margin-top:16px;padding:6px 14px;background:#18181b;color:#fff;border:0;border-radius:4px}p{font-size:13px;color:#52525b}.err{color:#b91c1c}</style></head>
<body><form method="post" action="/api/auth/signin"><h1 style="font-size:18px;margin:0">Metron</h1><p>This Metron is protected by an access token. Ask whoever runs it for one.</p>${message ? `<p class="err" role="alert">${escape(message)}</p>` : ""}
<label for="token">Access token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="${escape(target)}"><button type="submit">Sign in</button></form></body></html>`;
}
