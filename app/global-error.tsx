"use client";

import Link from "next/link";

/** The last resort when the layout itself failed: a plain page with the message and a retry. */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", padding: 32 }}>
        <h1 style={{ fontSize: 20 }}>Metron could not show this page</h1>
        <p>{error.message || "The server hit an error."}</p>
        {error.digest && <p style={{ color: "#71717a", fontSize: 12 }}>Reference for the server log: {error.digest}</p>}
        <button type="button" onClick={reset}>
          Try again
        </button>{" "}
        <Link href="/">Back to the runs</Link>
      </body>
    </html>
  );
}
