/** Before the unit tests: the compiled ingest worker (dist/cli, built with the CLI) must match the sources. */
export default async function setup(): Promise<void> {
  process.env.METRON_ROOT ??= process.cwd();
  const { buildCli } = await import("../../scripts/build-cli.mjs");
  await buildCli({ quiet: true });
}
