import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receivedDir, receiveToFile, removeLeftoverBodies, UploadTooLargeError } from "./receive";

describe("received upload bodies (issue 28)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-received-"));
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.DATABASE_PATH = path.join(dir, "metron.db");
  });
  afterAll(() => {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("wait beside the store, are removed when the upload fails, and what a stopped server left goes at start", async () => {
    process.env.METRON_MAX_UPLOAD_BYTES = "10";
    const body = new Blob(["0123456789abcdef"]).stream();
    await expect(receiveToFile(body)).rejects.toBeInstanceOf(UploadTooLargeError);
    delete process.env.METRON_MAX_UPLOAD_BYTES;
    expect(receivedDir()).toBe(path.join(dir, "received"));
    expect(readdirSync(receivedDir())).toEqual([]);
    // A server killed mid-upload leaves its body behind.
    mkdirSync(receivedDir(), { recursive: true });
    writeFileSync(path.join(receivedDir(), "left-behind.part"), "x".repeat(1000));
    writeFileSync(path.join(receivedDir(), "not-ours.txt"), "kept");
    expect(await removeLeftoverBodies()).toBe(1);
    expect(existsSync(path.join(receivedDir(), "left-behind.part"))).toBe(false);
    expect(existsSync(path.join(receivedDir(), "not-ours.txt"))).toBe(true);
  });
});
