/** How many times the event loop turned (a `setImmediate` ran) while `work` ran: 0 when it held the loop throughout. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    return { value, turns };
  } finally {
    on = false;
  }
}
