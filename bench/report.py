"""Turns bench/run.py's results into results.md and latency.png (gnuplot)."""

import os
import subprocess

ORDER = ["direct", "nginx", "sluice-pass", "sluice-trans", "sluice-masked", "sluice-anth", "sluice-bedrock",
         "sluice-pass+db", "sluice-trans+db", "sluice-pass+otel", "portkey"]
LABELS = {
    "direct": "direct (upstream)",
    "nginx": "nginx proxy_pass",
    "sluice-pass": "Sluice passthrough",
    "sluice-trans": "Sluice translation",
    "sluice-masked": "Sluice masked (data protection, ~1 KB prompt)",
    "sluice-anth": "Sluice Anthropic passthrough",
    "sluice-bedrock": "Sluice Bedrock (SigV4, InvokeModel)",
    "sluice-pass+db": "Sluice passthrough + keys & audit",
    "sluice-trans+db": "Sluice translation + keys & audit",
    "sluice-pass+otel": "Sluice passthrough + keys & audit, traced (OTLP, 100 %)",
    "portkey": "Portkey gateway",
}


def us(v):
    if v is None:
        return "—"
    if abs(v) >= 10000:
        return f"{v / 1000:.1f} ms"
    if abs(v) >= 1000:
        return f"{v / 1000:.2f} ms"
    return f"{v:.0f} µs"


def num(v, digits=0):
    if v is None:
        return "—"
    return f"{v:,.{digits}f}"


def ratio(a, b):
    if not a or not b:
        return "—"
    return f"{a / b:.2f}×"


def mib(kib):
    return "—" if kib is None else f"{kib / 1024:.1f}"


def write(res, out):
    t = res["targets"]
    names = [n for n in ORDER if n in t]
    gateways = [n for n in names if n != "direct"]
    direct = t["direct"]["closed"]
    lines = []
    w = lines.append
    m = res["machine"]
    w(f"# Sluice benchmark — {res['mode']} run, {res['started']}")
    w("")
    w(f"Machine: {m['cpus']} CPUs ({m['cpu_model']}), {m['mem_gib']} GiB, Linux {m['kernel']}. "
      f"Load average (1/5/15 min) {'/'.join(res.get('loadavg_start', []))} at the start, "
      f"{'/'.join(res.get('loadavg_before_ramp', []))} before the stream ramp (other work shares the machine). "
      f"Run took {res.get('elapsed_s', '?')} s. Load generator: bench/loadgen (sluice-loadgen), one thread, "
      f"keep-alive. Numbers are medians of {1 if res['mode'] == 'quick' else 3} interleaved rounds where noted. "
      "Added = through the target minus direct to the upstream, same generator, same concurrency.")
    w("")

    w("## Request/response lanes (static upstream, closed loop)")
    w("")
    w("| target | req/s c=16 | vs nginx | vs Portkey | p50 c=1 | added p50 c=1 | added p99 c=1 | added p50 c=16 | added p99 c=16 | added p50 c=64 | added p99 c=64 | CPU µs/req | failures |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    nginx_rps = t.get("nginx", {}).get("closed", {}).get("16", {}).get("rps")
    portkey_rps = t.get("portkey", {}).get("closed", {}).get("16", {}).get("rps")
    for n in names:
        c = t[n]["closed"]
        row = [LABELS[n], num(c["16"]["rps"]), ratio(c["16"]["rps"], nginx_rps), ratio(c["16"]["rps"], portkey_rps),
               us(c["1"]["p50_us"])]
        for k in ("1", "16", "64"):
            if n == "direct":
                row += ["—", "—"]
            else:
                row += [us(c[k]["p50_us"] - direct[k]["p50_us"]), us(c[k]["p99_us"] - direct[k]["p99_us"])]
        row += [num(c["16"]["cpu_us_per_req"]), str(sum(c[k]["failures"] for k in c))]
        w("| " + " | ".join(row) + " |")
    w("")
    w("`direct` p50/p99 at c=1, 16, 64: " + ", ".join(
        f"{us(direct[k]['p50_us'])} / {us(direct[k]['p99_us'])}" for k in ("1", "16", "64")) +
      ". CPU µs/req of `direct` is the upstream's own.")
    anth, bedrock = t.get("sluice-anth", {}).get("closed"), t.get("sluice-bedrock", {}).get("closed")
    if anth and bedrock:
        a16, b16 = anth["16"], bedrock["16"]
        w("")
        w(f"Bedrock against the Anthropic passthrough (same client, answer and upstream): "
          f"{num(b16['rps'])} vs {num(a16['rps'])} req/s at c=16 ({ratio(b16['rps'], a16['rps'])}); "
          f"{num(b16['cpu_us_per_req'] - a16['cpu_us_per_req'])} µs of CPU per request more "
          f"(the body rewritten and the request signed with SigV4); added p50 at c=1 "
          f"{us(bedrock['1']['p50_us'] - anth['1']['p50_us'])}. Request/response only: no streaming lane.")
    audited, traced = t.get("sluice-pass+db", {}).get("closed"), t.get("sluice-pass+otel", {}).get("closed")
    if audited and traced:
        w("")
        w(f"OpenTelemetry at 100 % sampling (spans and audit log records over OTLP/HTTP) against the same "
          f"audited passthrough untraced: {num(traced['16']['rps'])} vs {num(audited['16']['rps'])} req/s at c=16 "
          f"({ratio(traced['16']['rps'], audited['16']['rps'])}); "
          f"{num(traced['16']['cpu_us_per_req'] - audited['16']['cpu_us_per_req'])} µs of CPU per request more "
          f"(target: under 5); added p50 at c=1 {us(traced['1']['p50_us'] - audited['1']['p50_us'])} (target: none).")
    w("")

    w(f"## Throughput frontier and steady {res['targets'].get('sluice-pass', {}).get('steady', {}).get('rate', 2000):.0f} req/s (open loop)")
    w("")
    w("| target | frontier req/s | vs nginx | vs Portkey | p50 at steady rate | p99 at steady rate | added p99 at steady rate | failures at steady rate |")
    w("|---|---|---|---|---|---|---|---|")
    nginx_fr = t.get("nginx", {}).get("frontier", {}).get("rps")
    portkey_fr = t.get("portkey", {}).get("frontier", {}).get("rps")
    direct_steady = t["direct"].get("steady", {})
    for n in names:
        frontier = t[n].get("frontier", {})
        fr = frontier.get("rps")
        st = t[n].get("steady", {})
        if "p99_us" in st:
            steady = [us(st["p50_us"]), us(st["p99_us"]),
                      "—" if n == "direct" else us(st["p99_us"] - direct_steady.get("p99_us", 0)), str(st["failures"])]
        else:
            steady = ["not run: " + st.get("skipped", "—"), "", "", ""]
        shown = "—" if n == "direct" else (f"< {min(p['rate'] for p in frontier['probes']):,}" if frontier.get("below_grid")
                                           else num(fr) + (" (top of grid)" if fr == frontier.get("grid_top") else ""))
        w("| " + " | ".join([LABELS[n], shown, "—" if n == "direct" else ratio(fr, nginx_fr),
                             "—" if n == "direct" else ratio(fr, portkey_fr)] + steady) + " |")
    bound = next((t[n]["frontier"]["bound_ms"] for n in gateways if "frontier" in t[n]), 5)
    w("")
    w(f"Frontier: the highest rate of a fixed grid (100 … 40,000 req/s, up to 1.2× the target's c=16 throughput), "
      f"found by bisection, whose p99 minus direct's p99 at the same rate stayed under {bound:g} ms with zero "
      "failures; every probe is in results.json.")
    w("")

    w(f"## Streaming (paced mock, one event every 20 ms, 40 text deltas per stream, 16 concurrent streams)")
    w("")
    w("| target | TTFT p50 | added TTFT p50 | added TTFT p99 | inter-chunk p99 | added inter-chunk p99 | late frames | failures | streams sustained | RSS at that many (MiB) |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    ds = t["direct"].get("stream", {})
    for n in names:
        s = t[n].get("stream")
        if not s:
            continue
        ramp = t[n].get("streams", {})
        steps = ramp.get("steps", [])
        best = next((x for x in steps if x["streams"] == ramp.get("sustained")), None)
        sustained = "not run" if not ramp else (f"{ramp['sustained']:,}" + (" (highest tried)" if ramp["sustained"] == ramp["max_tried"] else ""))
        w("| " + " | ".join([
            LABELS[n], us(s["ttft_p50_us"]),
            "—" if n == "direct" else us(s["ttft_p50_us"] - ds["ttft_p50_us"]),
            "—" if n == "direct" else us(s["ttft_p99_us"] - ds["ttft_p99_us"]),
            us(s["gap_p99_us"]), "—" if n == "direct" else us(s["gap_p99_us"] - ds["gap_p99_us"]),
            str(s["late_frames"]), str(s["failures"]), sustained, mib(best["rss_kib"]) if best else "—"]) + " |")
    w("")
    shape = next((t[n]["streams"]["shape"] for n in names if "shape" in t[n].get("streams", {})), (200, 10, 250))
    w(f"Streams sustained: concurrent streams held for the whole measured window (each connection starts its next "
      f"stream as soon as one ends, the connections starting evenly over 3 s; {shape[1]} text deltas one event every "
      f"{shape[0]} ms) with no failed or short "
      f"stream and no frame — the first included (p99 time to first token) — more than {shape[2]} ms later than its pace. Levels tried stop at the first that fails; "
      "each level's numbers are in results.json. In the 16-stream test a frame is late 100 ms after its pace.")
    w("")

    f = res.get("fleet")
    if f:
        w(f"## A fleet: {f['replicas']} Sluice replicas with keys and audit behind nginx, one PostgreSQL (closed loop, c={f['connections']})")
        w("")
        w("| req/s (all replicas) | vs one nginx hop (c=16) | vs one replica (c=16) | p50 | p99 | replicas' CPU µs/req | nginx CPU µs/req | PostgreSQL CPU per 1,000 requests | answered | audit rows written | failures |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        one = t.get("sluice-pass+db", {}).get("closed", {}).get("16", {}).get("rps")
        rows_written = f.get("rows_written")
        w("| " + " | ".join([num(f["rps"]), ratio(f["rps"], nginx_rps), ratio(f["rps"], one), us(f["p50_us"]),
                             us(f["p99_us"]), num(f["replicas_cpu_us_per_req"]), num(f["nginx_cpu_us_per_req"]),
                             f"{f['postgres_cpu_ms_per_1000']:.1f} ms", f"{f['answered']:,}",
                             "—" if rows_written is None else f"{rows_written:,}", str(f["failures"])]) + " |")
        w("")
        w("Every replica runs on the same two cores as nginx, PostgreSQL and the load generator, so the aggregate "
          "shows the cost of the fleet's coordination (one database for keys, quotas and the audit trail), not "
          "horizontal scaling. PostgreSQL CPU is that of every `postgres` process during the measured window. "
          "Rows written are counted in `ai_requests` by replica name one second after each window (warm-up "
          "requests included, so they may exceed the answered count).")
        w("")
        pg_rows = [(n, t[n]["closed"]["16"].get("postgres_cpu_ms_per_1000")) for n in names
                   if n.endswith("+db") and t[n].get("closed", {}).get("16", {}).get("postgres_cpu_ms_per_1000") is not None]
        if pg_rows:
            w("PostgreSQL CPU per 1,000 requests on the single-replica lanes (c=16): " +
              ", ".join(f"{LABELS[n]} {v:.1f} ms" for n, v in pg_rows) + ".")
            w("")

    w("## Memory (VmRSS, MiB; nginx counts master and workers)")
    w("")
    w("| target | after start | idle (after one request) | peak at load (c=64) | after load (+5 s) | after the stream ramp |")
    w("|---|---|---|---|---|---|")
    seen_pid = set()
    for n in names:
        r = t[n].get("rss_kib", {})
        # The lanes one process serves are one row: translation, masking, Anthropic and Bedrock
        # share the process of the passthrough lane of their database setting.
        key = n if n.endswith("+otel") else (
            "sluice-pass+db" if n.endswith("+db") else ("sluice-pass" if n.startswith("sluice") else n))
        if key in seen_pid:
            continue
        seen_pid.add(key)
        label = LABELS[key].replace("passthrough", "(one process, every lane)") if n.startswith("sluice") else LABELS[n]
        w("| " + " | ".join([label, mib(r.get("start")), mib(r.get("idle")), mib(r.get("load")), mib(r.get("after")),
                             mib(r.get("after_streams"))]) + " |")
    w("")

    w("## The issue's targets")
    w("")
    targets = evaluate(res)
    w("| target | " + " | ".join(LABELS[n] for n in targets["lanes"]) + " |")
    w("|---|" + "---|" * len(targets["lanes"]))
    for name, cells in targets["rows"]:
        w(f"| {name} | " + " | ".join(cells) + " |")
    w("")
    for note in res.get("notes", []):
        w(f"- {note}")
    for name, keys in res.get("sluice_error_keys", {}).items():
        if keys:
            w(f"- {name} logged errors: " + ", ".join(f"`{k}` ×{v}" for k, v in sorted(keys.items())) +
              " (logs/ has the lines)")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    chart(res, out)


def mark(ok):
    return "**met**" if ok else "**missed**"


def evaluate(res):
    t = res["targets"]
    lanes = [n for n in ("sluice-pass", "sluice-trans", "sluice-pass+db", "sluice-trans+db") if n in t]
    rows = []
    nginx = t.get("nginx", {})
    portkey = t.get("portkey", {})
    direct = t["direct"]

    def cell(fn):
        out = []
        for n in lanes:
            try:
                out.append(fn(n, t[n]))
            except (KeyError, TypeError, ZeroDivisionError):
                out.append("—")
        return out

    rows.append(("throughput ≥ ½ nginx hop (c=16 req/s)", cell(lambda n, x: (
        f"{x['closed']['16']['rps'] / nginx['closed']['16']['rps']:.2f}× {mark(x['closed']['16']['rps'] >= 0.5 * nginx['closed']['16']['rps'])}"))))
    rows.append(("throughput ≥ 15× Portkey (c=16 req/s)", cell(lambda n, x: (
        f"{x['closed']['16']['rps'] / portkey['closed']['16']['rps']:.1f}× {mark(x['closed']['16']['rps'] >= 15 * portkey['closed']['16']['rps'])}"))))

    def added_p50(x):
        return x["closed"]["1"]["p50_us"] - direct["closed"]["1"]["p50_us"]

    rows.append(("added p50 at c=1 ≤ 2× nginx's", cell(lambda n, x: (
        f"{us(added_p50(x))} vs {us(added_p50(nginx))} {mark(added_p50(x) <= 2 * max(added_p50(nginx), 1))}"))))

    def steady_added(x):
        return x["steady"]["p99_us"] - direct["steady"]["p99_us"]

    rows.append(("added p99 < 1 ms at a steady 2,000 req/s", cell(lambda n, x: (
        f"{us(steady_added(x))} {mark(steady_added(x) < 1000 and x['steady']['failures'] == 0)}"))))

    def cpu(x):
        return x["closed"]["16"]["cpu_us_per_req"]

    rows.append(("translation CPU/req ≤ 1.5× passthrough's", cell(lambda n, x: (
        "—" if "trans" not in n else
        f"{cpu(x):.0f} vs {cpu(t[n.replace('trans', 'pass')]):.0f} µs {mark(cpu(x) <= 1.5 * cpu(t[n.replace('trans', 'pass')]))}"))))
    rows.append(("idle RSS < 20 MB", cell(lambda n, x: (
        f"{mib(x['rss_kib']['idle'])} MiB {mark(x['rss_kib']['idle'] * 1024 < 20e6)}"))))
    rows.append(("RSS after load within 10 % of idle", cell(lambda n, x: (
        f"{mib(x['rss_kib']['after'])} MiB (+{100 * (x['rss_kib']['after'] / x['rss_kib']['idle'] - 1):.0f} %) "
        f"{mark(x['rss_kib']['after'] <= 1.1 * x['rss_kib']['idle'])}"))))
    res["evaluation"] = {"lanes": lanes, "rows": rows}
    return {"lanes": lanes, "rows": rows}


def chart(res, out):
    t = res["targets"]
    names = [n for n in ORDER if n in t]
    data = os.path.join(out, "latency.dat")
    with open(data, "w") as f:
        f.write("# target p50_c1 p99_c1 p50_c16 p99_c16 p50_c64 p99_c64 rps_c16\n")
        for n in names:
            c = t[n]["closed"]
            f.write(f"\"{n}\" " + " ".join(
                f"{c[k][p]:.1f}" for k in ("1", "16", "64") for p in ("p50_us", "p99_us")) + f" {c['16']['rps']:.0f}\n")
    script = f"""
set terminal pngcairo size 1400,900 font ",10"
set output "{os.path.join(out, 'latency.png')}"
set multiplot layout 2,2 title "Sluice benchmark ({res['mode']} run, {res['started']}): latency through each target, static upstream, closed loop"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set ylabel "latency (µs, log scale)"
set xtics rotate by -30 font ",8"
set key top left
set title "1 connection"
plot "{data}" using 2:xtic(1) title "p50", "" using 3 title "p99"
set title "16 connections"
plot "{data}" using 4:xtic(1) title "p50", "" using 5 title "p99"
set title "64 connections"
plot "{data}" using 6:xtic(1) title "p50", "" using 7 title "p99"
unset logscale y
set ylabel "requests/s"
set title "throughput at 16 connections"
plot "{data}" using 8:xtic(1) title "req/s" lc rgb "#4070a0"
unset multiplot
"""
    with open(os.path.join(out, "latency.gp"), "w") as f:
        f.write(script)
    try:
        subprocess.run(["gnuplot", os.path.join(out, "latency.gp")], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"gnuplot failed: {error}")
