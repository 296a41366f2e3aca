// Starts the stack once for every end-to-end test: scripts/web.py with a memory store, a
// free port and fast bots, and hands its addresses to the tests (inject("stack")).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

export interface Stack {
  url: string;
  grpc: string;
  envoy_grpc: string;
  spki?: string; // the page certificate's public-key pin, when served over https
  python: string;
  root: string;
  artifacts: string;
  /** The server's admin token (scenario games: a battle set up for the reveal test). */
  adminToken: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    stack: Stack;
  }
}

const ROOT = resolve(__dirname, "../../..");

let child: ChildProcess | undefined;

export default async function setup(project: TestProject) {
  const python = process.env.YGGDRASIL_PYTHON ?? join(ROOT, ".venv/bin/python");
  if (!existsSync(python)) throw new Error(`${python} not found: run make install`);
  const artifacts = resolve(__dirname, "../artifacts");
  mkdirSync(artifacts, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), "ygg-web-e2e-"));
  const ready = join(dir, "ready.json");
  const adminToken = `e2e-admin-${process.pid}-${Date.now()}`;
  let output = "";
  // Over https when make web-test made a certificate (YGGDRASIL_WEB_TLS: its directory).
  const tlsDir = process.env.YGGDRASIL_WEB_TLS;
  const tls = tlsDir ? ["--tls-cert", join(tlsDir, "server.pem"), "--tls-key", join(tlsDir, "server-key.pem")] : [];
  child = spawn(
    python,
    ["scripts/web.py", "--port", "0", "--store", "memory", "--bot", "random", "--bot-delay-ms", "0", "--bot-seed", "3", "--ready-file", ready, ...tls],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, YGGDRASIL_ADMIN_TOKEN: adminToken },
    },
  );
  child.stdout?.on("data", (d) => (output += String(d)));
  child.stderr?.on("data", (d) => (output += String(d)));
  const deadline = Date.now() + 150_000;
  while (!existsSync(ready) || !readFileSync(ready, "utf8")) {
    if (child.exitCode !== null) throw new Error(`scripts/web.py exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`scripts/web.py not ready in time:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const info = JSON.parse(readFileSync(ready, "utf8")) as Omit<Stack, "python" | "root" | "artifacts" | "adminToken">;
  project.provide("stack", { ...info, python, root: ROOT, artifacts, adminToken });
  return async () => {
    if (child?.pid && child.exitCode === null) {
      process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => child!.once("exit", r));
    }
  };
}
