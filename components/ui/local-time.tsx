"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => undefined;

/**
 * A stored UTC timestamp in the reader's own time zone and locale (Intl.DateTimeFormat, in the browser). The server
 * renders it in UTC, marked as such, so the first paint is never a wrong local time.
 */
export function LocalTime({ iso }: { iso: string }) {
  const local = useSyncExternalStore(
    subscribe,
    () => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)),
    () => `${iso.replace("T", " ").slice(0, 16)} UTC`,
  );
  return (
    <time dateTime={iso} title={iso}>
      {local}
    </time>
  );
}
