"use client";

import { useEffect, useRef, useState } from "react";

/**
 * Renders its children once they come near the viewport: charts below the fold cost no JavaScript on a page's first
 * load (recharts is the largest library Metron ships), and load as the reader scrolls to them.
 */
export function LoadWhenVisible({
  children,
  minHeight,
  label,
}: {
  children: React.ReactNode;
  minHeight: number;
  label: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setVisible(true);
          observer.disconnect();
        }
      },
      { rootMargin: "300px" },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} style={visible ? undefined : { minHeight }} data-loaded={visible || undefined}>
      {visible ? children : <p className="py-8 text-center text-sm text-zinc-500">{label} load as you scroll here…</p>}
    </div>
  );
}
