/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}
