/**
 * Runs once when the server starts. Next.js compiles this file for the Edge runtime too; what the server does at
 * its start needs Node.js (the store, worker threads, files), so it is imported only in the Node.js runtime, a
 * condition the build resolves (instrumentation-node.ts, the split the Next.js documentation gives).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startServer } = await import("./instrumentation-node");
    await startServer();
  }
}
