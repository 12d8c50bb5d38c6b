"use client";

import "@scalar/api-reference/style.css";
import { useEffect, useRef } from "react";

/**
 * The API's OpenAPI document rendered by Scalar (loaded from the package, nothing from a CDN), in the page's own
 * box. Scalar mounts its own app into the element: an external system, hence the effect.
 */
export function ApiReference({ url }: { url: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let app: { destroy?: () => void } | undefined;
    let gone = false;
    void import("@scalar/api-reference").then(({ createApiReference }) => {
      if (gone || !box.current) return;
      app = createApiReference(box.current, {
        url,
        hideClientButton: true,
        withDefaultFonts: false,
        telemetry: false,
        // Scalar's agent chat fetches a registry from proxy.scalar.com: an outside call (the page's CSP refuses it).
        agent: { disabled: true },
      } as Parameters<typeof createApiReference>[1]) as { destroy?: () => void };
    });
    return () => {
      gone = true;
      app?.destroy?.();
    };
  }, [url]);
  return <div ref={box} data-testid="api-reference" className="min-h-96" />;
}
