"use client";

import { useState } from "react";
import { download } from "@/components/charts/figure-export";

/** A summary table as LaTeX (booktabs) and Markdown: copied with one click, downloaded, or read below. */
export function TableExport({
  latex,
  markdown,
  fileName,
  testId,
}: {
  latex: string;
  markdown: string;
  fileName: string;
  testId?: string;
}) {
  const [status, setStatus] = useState<string | null>(null);
  const copy = async (what: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setStatus(`${what} copied`);
    } catch {
      setStatus(`the browser does not allow copying here: open "${what}" below and select it`);
    }
  };
  const button = "rounded border border-zinc-300 bg-white px-1.5 py-0.5 hover:bg-zinc-50";
  return (
    <div className="space-y-1 text-xs" data-testid={testId}>
      <div className="flex flex-wrap items-center gap-1">
        <span className="text-zinc-600">This table as</span>
        <button type="button" className={button} onClick={() => void copy("LaTeX", latex)}>
          Copy LaTeX
        </button>
        <button type="button" className={button} onClick={() => void copy("Markdown", markdown)}>
          Copy Markdown
        </button>
        <button
          type="button"
          className={button}
          onClick={() => download(`${fileName}.tex`, new Blob([latex], { type: "application/x-tex" }))}
        >
          .tex
        </button>
        <button
          type="button"
          className={button}
          onClick={() => download(`${fileName}.md`, new Blob([markdown], { type: "text/markdown" }))}
        >
          .md
        </button>
        {status && (
          <span role="status" className="text-zinc-600">
            {status}
          </span>
        )}
      </div>
      <details>
        <summary className="cursor-pointer text-zinc-600">LaTeX (booktabs)</summary>
        <pre tabIndex={0} className="overflow-x-auto rounded border border-zinc-200 bg-zinc-50 p-2" data-testid="latex">
          {latex}
        </pre>
      </details>
      <details>
        <summary className="cursor-pointer text-zinc-600">Markdown</summary>
        <pre
          tabIndex={0}
          className="overflow-x-auto rounded border border-zinc-200 bg-zinc-50 p-2"
          data-testid="markdown"
        >
          {markdown}
        </pre>
      </details>
    </div>
  );
}
