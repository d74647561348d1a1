#!/usr/bin/env python3
"""Drives rapidsnark's proverServer the only way it can be driven: one proof at
a time (a POST /input/<circuit> while a proof runs deadlocks the server we
built, and upstream documents that a new input aborts the running proof).

    rapidsnark-server-load.py URL CIRCUIT input.json REQUESTS OUT_DIR [RATE]

For each request: POST /input/<circuit>, then GET /status every 2 ms until it
is no longer "busy"; a "success" answer's proof and public signals (JSON
strings inside the JSON) are written to OUT_DIR/proof-K.json and
public-K.json for the caller to verify. Prints one JSON line: proofs_per_second
(over the whole run), p50_ms, p90_ms, p99_ms, failed. Loopback URLs only.

With RATE (requests per second), request K is due at K / RATE seconds after
the start; it is sent when it is due or when the one before it is done,
whichever is later, and its latency counts from when it was due (the queue a
client of proverServer has to keep itself, with no coordinated omission).
"""
import json
import os
import sys
import time
import urllib.parse
import urllib.request


def call(method, url, body=None):
    req = urllib.request.Request(url, data=body, method=method)
    with urllib.request.urlopen(req, timeout=600) as r:
        return r.read()


def main():
    url, circuit, input_path, n, out = sys.argv[1:6]
    rate = float(sys.argv[6]) if len(sys.argv) > 6 else None
    host = urllib.parse.urlparse(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit(f"{url}: loopback addresses only")
    body = open(input_path, "rb").read()
    os.makedirs(out, exist_ok=True)
    lat, failed = [], 0
    t0 = time.perf_counter()
    for k in range(int(n)):
        s = time.perf_counter()
        if rate:
            due = t0 + k / rate
            if due > s:
                time.sleep(due - s)
            s = due
        call("POST", f"{url}/input/{circuit}", body)
        while True:
            st = json.loads(call("GET", f"{url}/status"))
            if st.get("status") != "busy":
                break
            time.sleep(0.002)
        lat.append((time.perf_counter() - s) * 1000)
        if st.get("status") != "success":
            failed += 1
            continue
        with open(f"{out}/proof-{k}.json", "w") as f:
            f.write(st["proof"])
        with open(f"{out}/public-{k}.json", "w") as f:
            f.write(st["pubData"])
    total = time.perf_counter() - t0
    lat.sort()
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print(json.dumps({
        "proofs_per_second": (len(lat) - failed) / total,
        "p50_ms": pick(0.5),
        "p90_ms": pick(0.9),
        "p99_ms": pick(0.99),
        "failed": failed,
    }))


if __name__ == "__main__":
    main()
