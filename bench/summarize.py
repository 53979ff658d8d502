#!/usr/bin/env python3
"""Medians over several benchmark runs: the figures docs/BENCHMARKS.md quotes.

    python3 bench/summarize.py [results-*.json ...]   # default: bench/out/runs/*.json of full runs

Prints a Markdown table (target × figure: the median, then each run's value) and writes it to
bench/out/summary.md beside the runs.
"""

import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import LABELS, ORDER, us  # noqa: E402


def figures(run):
    """{target: {figure: value}} for one run."""
    t = run["targets"]
    direct = t["direct"]
    out = {}
    for name in ORDER:
        if name not in t:
            continue
        x = t[name]
        f = {}
        c = x.get("closed", {})
        f["req/s c=16"] = c.get("16", {}).get("rps")
        if name != "direct":
            f["added p50 c=1 (µs)"] = c["1"]["p50_us"] - direct["closed"]["1"]["p50_us"]
            f["added p99 c=1 (µs)"] = c["1"]["p99_us"] - direct["closed"]["1"]["p99_us"]
            f["added p50 c=16 (µs)"] = c["16"]["p50_us"] - direct["closed"]["16"]["p50_us"]
            f["added p50 c=64 (µs)"] = c["64"]["p50_us"] - direct["closed"]["64"]["p50_us"]
            f["frontier req/s"] = x.get("frontier", {}).get("rps")
            st = x.get("steady", {})
            if "p99_us" in st and "p99_us" in direct.get("steady", {}):
                f["added p99 at 2,000 req/s (µs)"] = st["p99_us"] - direct["steady"]["p99_us"]
            s, ds = x.get("stream"), direct.get("stream")
            if s and ds:
                f["added TTFT p50 (µs)"] = s["ttft_p50_us"] - ds["ttft_p50_us"]
                f["added inter-chunk p99 (µs)"] = s["gap_p99_us"] - ds["gap_p99_us"]
        f["CPU µs/req"] = c.get("16", {}).get("cpu_us_per_req")
        if "streams" in x:
            pace = x["streams"].get("shape", [20])[0]
            start = "staggered" if "ramp_up_s" in x["streams"] else "lockstep"
            f[f"streams sustained ({pace} ms pace, {start})"] = x["streams"]["sustained"]
        r = x.get("rss_kib", {})
        f["idle RSS (MiB)"] = r.get("idle") and r["idle"] / 1024
        f["RSS after load (MiB)"] = r.get("after") and r["after"] / 1024
        out[name] = f
    return out


def fmt(key, value):
    if value is None:
        return "—"
    if "(µs)" in key:
        return us(value)
    if "MiB" in key:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def main():
    paths = sys.argv[1:]
    if not paths:
        here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "runs")
        paths = sorted(glob.glob(os.path.join(here, "results-*.json")))
    runs = [json.load(open(p)) for p in paths]
    runs = [r for r in runs if r.get("mode") == "full"] or runs
    if not runs:
        sys.exit("no runs")
    per_run = [figures(r) for r in runs]
    lines = [f"Medians of {len(runs)} runs ({', '.join(r['started'][:16] for r in runs)}); each run's value follows "
             "in brackets.", ""]
    keys = []
    for f in per_run:
        for target in f.values():
            keys += [k for k in target if k not in keys]
    names = [n for n in ORDER if any(n in f for f in per_run)]
    lines.append("| figure | " + " | ".join(LABELS[n] for n in names) + " |")
    lines.append("|---|" + "---|" * len(names))
    for key in keys:
        cells = []
        for n in names:
            values = [f.get(n, {}).get(key) for f in per_run]
            present = [v for v in values if v is not None]
            if not present:
                cells.append("—")
                continue
            median = statistics.median(present)
            cells.append(f"{fmt(key, median)} ({' / '.join(fmt(key, v) for v in values)})" if len(runs) > 1
                         else fmt(key, median))
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = os.path.join(os.path.dirname(os.path.abspath(paths[0])), "..", "summary.md")
    with open(os.path.normpath(out), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
