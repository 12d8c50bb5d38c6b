// Tokens of the e2e server that runs with access control (e2e/security.spec.ts); test values, not secrets.
export const WRITE_TOKEN = "e2e-write-token-0123456789abcdef";
export const READ_TOKEN = "e2e-read-token-fedcba9876543210";
export const SECURE_PORT = Number(process.env.E2E_SECURE_PORT ?? 3101);
