"use client";

import { useRef, useState } from "react";

/** Scrolls the timelines inside it together, so step N of every run stays on one line. */
export function ScrollTogether({ children }: { children: React.ReactNode }) {
  const [on, setOn] = useState(true);
  const syncing = useRef(false);
  const onScroll = (e: React.UIEvent<HTMLDivElement>) => {
    const source = e.target as HTMLElement;
    if (!on || syncing.current || !source.dataset.timeline) return;
    syncing.current = true;
    e.currentTarget.querySelectorAll<HTMLElement>("[data-timeline]").forEach((el) => {
      if (el !== source) el.scrollTop = source.scrollTop;
    });
    requestAnimationFrame(() => {
      syncing.current = false;
    });
  };
  return (
    <div onScrollCapture={onScroll}>
      <label className="mb-2 flex items-center gap-1 text-sm">
        <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} /> scroll the timelines together
        (steps aligned by order)
      </label>
      {children}
    </div>
  );
}
