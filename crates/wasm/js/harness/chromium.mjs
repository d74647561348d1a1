// Headless Chromium for the package's browser test and its browser
// benchmark: a page served from a loopback port, which posts one JSON
// result back to /result. Debian's `chromium`, or ZKACCEL_CHROMIUM; no
// browser is downloaded.
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { spawn, execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";

/** The Chromium command to run, or null where there is none. */
export function findChromium() {
  for (const c of [process.env.ZKACCEL_CHROMIUM, "chromium", "chromium-browser"]) {
    if (!c) continue;
    try {
      execFileSync(c, ["--version"], { stdio: "ignore" });
      return c;
    } catch {}
  }
  return null;
}

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/**
 * Serves `page` (HTML) at /page.html and each `[prefix, dir]` of `routes`
 * (files under dir at /prefix/...) on 127.0.0.1, opens the page in headless
 * `browser`, and resolves with the JSON the page posts to /result; rejects
 * when Chromium exits first or nothing comes within `timeoutMs`. Chromium
 * (its whole process group), the server and the profile are gone when it
 * settles.
 */
export async function runPage(browser, page, routes, timeoutMs) {
  let deliver;
  const result = new Promise((r) => (deliver = r));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (req.method === "POST" && url.pathname === "/result") {
      let body = "";
      for await (const chunk of req) body += chunk;
      res.end("ok");
      return deliver(JSON.parse(body));
    }
    const hit = routes.find(([prefix]) => url.pathname.startsWith(prefix));
    try {
      if (url.pathname === "/page.html") {
        res.setHeader("content-type", "text/html");
        return res.end(page);
      }
      if (!hit || url.pathname.includes("..")) throw new Error("not found");
      const data = await readFile(path.join(hit[1], url.pathname.slice(hit[0].length)));
      res.setHeader("content-type", TYPES[path.extname(url.pathname)] ?? "application/octet-stream");
      res.end(data);
    } catch {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const profile = await mkdtemp(path.join(tmpdir(), "zkaccel-chromium-"));
  const args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
    `--user-data-dir=${profile}`, `http://127.0.0.1:${server.address().port}/page.html`];
  // Its own process group: Debian's chromium is a wrapper script, and the
  // browser's helper processes are killed with it.
  const child = spawn(browser, args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const gone = new Promise((r) => child.on("exit", r));
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((_, reject) => child.on("exit", (code) =>
    reject(new Error(`chromium exited (${code}) before the page answered:\n${stderr.slice(-2000)}`))));
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the page within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([result, exited, timeout]);
  } finally {
    clearTimeout(timer);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    await gone;
    server.close();
    await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
