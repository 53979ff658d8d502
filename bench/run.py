#!/usr/bin/env python3
"""The benchmark driver, run by scripts/bench.sh (which installs, builds and passes the paths).

Starts every process on loopback, measures each target with the same load generator against the
same upstreams, and writes bench/out/results.json, results.md and latency.png.

Targets (request/response lanes go to the static upstream, streaming lanes to the paced mock):
  direct          the upstream itself
  nginx           nginx proxy_pass with a keep-alive upstream pool (the floor for one hop)
  sluice-pass     Sluice, OpenAI client -> openai-chat endpoint (no database)
  sluice-trans    Sluice, Anthropic client (/v1/messages) -> the same endpoint (no database)
  sluice-masked   Sluice, OpenAI client -> an openai-chat endpoint of trust tier `public` (no database):
                  data protection masks a ~1 KB prompt of code with secrets, and restores the answer
  sluice-anth     Sluice, Anthropic client -> an anthropic endpoint (passthrough, no database)
  sluice-bedrock  Sluice, Anthropic client -> Bedrock InvokeModel (`platform: bedrock`, wire anthropic):
                  the anthropic passthrough plus the body rewrite and SigV4 signing (no database);
                  request/response only (the static upstream frames no event stream)
  sluice-pass+otel  sluice-pass+db with OpenTelemetry on: every request traced (always_on), spans and
                  audit rows (as log records) exported over OTLP/HTTP to a stand-in answering 200
  sluice-pass+db  the same two lanes with --database-url: API keys and the audit writer on
  sluice-trans+db   a real PostgreSQL, as a user runs it
  portkey         the Portkey gateway (npm @portkey-ai/gateway), provider openai, custom host
"""

import argparse
import datetime
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

PASS_BODY = {"model": "bench-static", "messages": [{"role": "user", "content": "Hello there"}]}
TRANS_BODY = {"model": "bench-static", "max_tokens": 64, "messages": [{"role": "user", "content": "Hello there"}]}
ANTHROPIC_BODY = {**TRANS_BODY, "model": "bench-anthropic"}
ANTHROPIC_DIRECT_BODY = {**TRANS_BODY, "model": "claude-bench"}
DIRECT_BODY = {"model": "gpt-bench", "messages": [{"role": "user", "content": "Hello there"}]}
# (pace ms, text deltas, late threshold ms): the streaming test paces as the issue asks; the stream
# ramp paces slower so that it measures how many open streams a target holds rather than how many
# events two shared cores can move (4,000 streams at 20 ms would be 200k events/s through the mock,
# the target and the generator; at 500 ms it is 8k).
# The masked lane's prompt: about 1 KB of what a coding agent pastes (code, a log line, an .env
# file), with a few secrets and personal values that data protection masks.
MASKED_PROMPT = """Why does the deploy fail? Here is the config and the log.

```python
import os, boto3

def client():
    # TODO: read these from the vault
    return boto3.client("s3", aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
                        region_name=os.environ.get("AWS_REGION", "eu-west-1"))

def notify(user):
    send_mail(to="oncall@example.com", cc=user.email, subject=f"deploy {VERSION} failed")
```

.env:
DATABASE_URL=postgres://deploy:s3cr3t-Pa55@db.internal:5432/app
OPENAI_API_KEY=sk-proj-Zx81Qw7Er6Ty5Ui4Op3As2Df1Gh0JkLm
SENTRY_DSN=https://public@sentry.example.com/42
LOG_LEVEL=info

log:
2026-05-01T12:00:03.117Z ERROR deploy.py:41 upload failed for build 7f3c2a1 from 10.20.30.40: AccessDenied
2026-05-01T12:00:03.120Z INFO  retrying in 5s (attempt 2/3), contact jane.doe@example.org or +44 20 7946 0958
"""
MASKED_BODY = {"model": "bench-masked", "messages": [{"role": "user", "content": MASKED_PROMPT}]}
STREAM_SHAPE = (20, 40, 100)
RAMP_SHAPE = (500, 6, 250)


def mock_script(shape):
    pace, tokens, _ = shape
    return json.dumps({"chunk_delay_ms": pace, "text": " ".join(f"tok{i}" for i in range(tokens))})
OPENAI_MARKER = '"delta":{"content":"'
ANTHROPIC_MARKER = '"text_delta"'


def log(message):
    print(f"==> {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


def proc_tree(pid):
    """The pid and its children (nginx's workers)."""
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    return pids


def rss_kib(pid):
    total = 0
    for p in proc_tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def cpu_ticks(pid):
    total = 0
    for p in proc_tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total


TICK_US = 1_000_000 / os.sysconf("SC_CLK_TCK")


def postgres_ticks():
    """CPU ticks (user + system) of every process named postgres: the server and its backends."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "postgres":
                    continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime; each process once
        except (OSError, ValueError, IndexError):
            pass  # ended meanwhile
    return total


class Processes:
    """Everything the benchmark started; stopped by pid, never by name."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.children = []

    def start(self, name, argv, env=None, wait_listening=False, stdout=None):
        log(f"starting {name}: {' '.join(argv[:3])} ...")
        err = open(os.path.join(self.workdir, f"{name}.stderr"), "wb")
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE if wait_listening else (stdout or subprocess.DEVNULL),
                                stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        self.children.append((name, proc))
        if wait_listening:
            line = proc.stdout.readline().decode().strip()
            if not line.startswith("listening on "):
                proc.wait(timeout=5)
                raise RuntimeError(f"{name} did not start: {open(err.name).read()[-2000:]}")
            address = line[len("listening on "):]
            return proc, int(address.rsplit(":", 1)[1])
        return proc, None

    def keep_logs(self, out):
        """Keeps what is worth reading of each process's stderr in out/logs: for Sluice the lines
        that are not per-request info lines and a count of error keys; for the others the tail."""
        logs = os.path.join(out, "logs")
        shutil.rmtree(logs, ignore_errors=True)
        os.makedirs(logs)
        summary = {}
        for name, _ in self.children:
            path = os.path.join(self.workdir, f"{name}.stderr")
            try:
                lines = open(path, errors="replace").read().splitlines()
            except OSError:
                continue
            if name.startswith("sluice"):
                keys = {}
                for line in lines:
                    if '"error_key"' in line:
                        key = line.split('"error_key":"', 1)[1].split('"', 1)[0]
                        keys[key] = keys.get(key, 0) + 1
                summary[name] = keys
                kept = [line for line in lines if '"level":"info"' not in line][-2000:]
            else:
                kept = lines[-200:]
            with open(os.path.join(logs, f"{name}.log"), "w") as f:
                f.write("\n".join(kept) + "\n")
        return summary

    def stop(self, proc):
        """Stops one process (SIGTERM, then SIGKILL after 10 s); its log is kept."""
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def stop_all(self):
        for name, proc in reversed(self.children):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in reversed(self.children):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.children.clear()


class Target:
    def __init__(self, name, label, port, path, headers, body, pid, stream_path=None, stream_headers=None,
                 stream_body=None, marker=OPENAI_MARKER, sluice=False):
        self.name, self.label, self.port, self.path = name, label, port, path
        self.headers, self.body, self.pid = headers, body, pid
        self.stream_path = stream_path
        self.stream_headers = stream_headers
        self.stream_body = stream_body
        self.marker = marker
        self.sluice = sluice


class Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.loadgen = args.loadgen
        self.results = {"started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                        "mode": "quick" if self.quick else "full", "machine": machine(), "targets": {},
                        "notes": []}
        self.rounds = 1 if self.quick else 3
        self.direct_at_rate = {}
        self.lat_duration = 1.0 if self.quick else 2.0
        self.lat_warmup = 0.3 if self.quick else 0.5

    # --- running the load generator -------------------------------------------------------------

    def run(self, target, *, connections, duration, warmup, rate=0, stream=None, threads=1, levels_label="",
            ramp_up=0.0):
        """One load-generator run; `stream` is a STREAM_SHAPE-like tuple for streaming runs."""
        argv = [self.loadgen, "--url", f"http://127.0.0.1:{target.port}{target.stream_path if stream else target.path}",
                "-c", str(connections), "-t", str(threads), "-d", str(duration), "--warmup", str(warmup),
                "--label", f"{target.name} {levels_label}".strip()]
        headers = target.stream_headers if stream else target.headers
        for h in headers:
            argv += ["-H", h]
        if stream:
            argv += ["-H", f"x-mock-script: {mock_script(stream)}"]
        argv += ["--body", json.dumps(target.stream_body if stream else target.body)]
        if rate:
            argv += ["--rate", str(rate)]
        if ramp_up:
            argv += ["--ramp-up", str(ramp_up)]
        if stream:
            pace, tokens, late = stream
            argv += ["--stream-marker", target.marker, "--pace-ms", str(pace), "--late-ms", str(late),
                     "--expect-tokens", str(tokens), "--timeout-ms", "30000"]
        ticks0 = cpu_ticks(target.pid)
        pg0 = postgres_ticks()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        peak_rss = 0
        while proc.poll() is None:  # the target's resident set while the load runs
            peak_rss = max(peak_rss, rss_kib(target.pid))
            time.sleep(0.1)
        out, err = proc.communicate()
        ticks1 = cpu_ticks(target.pid)
        pg1 = postgres_ticks()
        if proc.returncode != 0:
            raise RuntimeError(f"sluice-loadgen failed ({proc.returncode}): {err}")
        result = json.loads(out)
        result["target_cpu_us"] = (ticks1 - ticks0) * TICK_US
        result["postgres_cpu_us"] = (pg1 - pg0) * TICK_US
        result["target_peak_rss_kib"] = peak_rss
        return result

    # --- the measurements -----------------------------------------------------------------------

    def latency_matrix(self, targets):
        """Closed loop at 1, 16 and 64 connections, rounds interleaved across targets."""
        runs = {t.name: {c: [] for c in (1, 16, 64)} for t in targets}
        for r in range(self.rounds):
            for c in (1, 16, 64):
                for t in targets:
                    log(f"latency round {r + 1}/{self.rounds}: {t.name} c={c}")
                    res = self.run(t, connections=c, duration=self.lat_duration, warmup=self.lat_warmup)
                    runs[t.name][c].append(res)
                    if c == 64:
                        rss = self.results["targets"][t.name].setdefault("rss_kib", {})
                        rss["load"] = max(rss.get("load", 0), res["target_peak_rss_kib"])
        for t in targets:
            out = self.results["targets"][t.name].setdefault("closed", {})
            for c in (1, 16, 64):
                rs = runs[t.name][c]
                out[str(c)] = {
                    "rps": med([x["rps"] for x in rs]),
                    "p50_us": med([x["latency_us"]["p50"] for x in rs]),
                    "p99_us": med([x["latency_us"]["p99"] for x in rs]),
                    "failures": sum(x["failures"] for x in rs),
                    "cpu_us_per_req": med([x["target_cpu_us"] / max(1, x["requests_all"]) for x in rs]),
                    "postgres_cpu_ms_per_1000": med([x["postgres_cpu_us"] / max(1, x["requests_all"]) for x in rs]),
                    "runs": rs,
                }

    FRONTIER_RATES = [100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000,
                      15000, 20000, 25000, 30000, 40000]

    def frontier(self, target, direct):
        """Highest rate of a fixed grid whose p99 added latency (p99 through the target minus direct's
        p99 at the same rate) stays under the bound with zero failures; bisection over the grid."""
        bound = self.args.bound_ms * 1000
        duration = 1.5 if self.quick else 2.5
        ceiling = self.results["targets"][target.name]["closed"]["16"]["rps"] * 1.2
        grid = [r for r in self.FRONTIER_RATES if r <= ceiling] or self.FRONTIER_RATES[:1]
        lo, hi = -1, len(grid)
        probes = []
        for _ in range(2 if self.quick else 5):
            if hi - lo <= 1:
                break
            mid = (lo + hi + 1) // 2
            rate = grid[mid]
            if rate not in self.direct_at_rate:
                log(f"frontier direct: {rate} req/s")
                self.direct_at_rate[rate] = self.run(direct, connections=64, duration=duration, warmup=0.5, rate=rate)
            base = self.direct_at_rate[rate]["latency_us"]["p99"]
            log(f"frontier {target.name}: {rate} req/s")
            res = self.run(target, connections=64, duration=duration, warmup=0.5, rate=rate)
            added = res["latency_us"]["p99"] - base
            ok = res["failures"] == 0 and added < bound
            probes.append({"rate": rate, "p99_us": res["latency_us"]["p99"], "direct_p99_us": base,
                           "added_p99_us": added, "failures": res["failures"], "pass": ok})
            if ok:
                lo = mid
            else:
                hi = mid
        self.results["targets"][target.name]["frontier"] = {
            "rps": grid[lo] if lo >= 0 else 0, "below_grid": lo < 0, "bound_ms": self.args.bound_ms,
            "grid_top": grid[-1], "probes": probes}

    def steady(self, target, rate):
        res = self.run(target, connections=64, duration=2.0 if self.quick else 5.0, warmup=0.5, rate=rate)
        self.results["targets"][target.name]["steady"] = {
            "rate": rate, "p50_us": res["latency_us"]["p50"], "p99_us": res["latency_us"]["p99"],
            "p999_us": res["latency_us"]["p999"], "failures": res["failures"], "run": res}

    def streaming(self, target):
        res = self.run(target, connections=16, duration=2.0 if self.quick else 5.0, warmup=0.5, stream=STREAM_SHAPE)
        self.results["targets"][target.name]["stream"] = {
            "ttft_p50_us": res["ttft_us"]["p50"], "ttft_p99_us": res["ttft_us"]["p99"],
            "gap_p50_us": res["gap_us"]["p50"], "gap_p99_us": res["gap_us"]["p99"],
            "failures": res["failures"], "late_frames": res["streams"]["late_frames"],
            "frames": res["streams"]["frames"], "run": res}

    def streams_ramp(self, target):
        levels = [1000] if self.quick else [500, 1000, 2000, 4000]
        sustained, steps = 0, []
        for n in levels:
            log(f"streams {target.name}: {n} concurrent")
            # The connections start evenly over 3 s (streams in lockstep would measure a burst, not
            # what is held); streams that start after the warm-up are the ones counted.
            res = self.run(target, connections=n, duration=3.0, warmup=3.5, ramp_up=3.0,
                           stream=RAMP_SHAPE, threads=2, levels_label=f"{n} streams")
            step = {"streams": n, "completed": res["streams"]["completed"], "failures": res["failures"],
                    "dropped": res["streams"]["dropped"], "late_frames": res["streams"]["late_frames"],
                    "frames": res["streams"]["frames"], "gap_p99_us": res["gap_us"]["p99"],
                    "gap_max_us": res["gap_us"]["max"], "ttft_p99_us": res["ttft_us"]["p99"],
                    "rss_kib": rss_kib(target.pid), "errors": res["errors"]}
            steps.append(step)
            pace, _, late = RAMP_SHAPE
            slow_start = res["ttft_us"]["p99"] > (pace + late) * 1000  # the first frame is a frame too
            step["slow_start"] = slow_start
            if res["failures"] or res["streams"]["late_frames"] or res["streams"]["completed"] == 0 or slow_start:
                break
            sustained = n
            time.sleep(1)  # let the previous level's connections close
        self.results["targets"][target.name]["streams"] = {"sustained": sustained, "steps": steps,
                                                           "max_tried": levels[-1], "shape": RAMP_SHAPE,
                                                           "ramp_up_s": 3.0}


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def machine():
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu_model": model, "kernel": os.uname().release,
            "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)}


# --- starting the world ------------------------------------------------------------------------

def nginx_conf(workdir, name, port, workers, body):
    prefix = os.path.join(workdir, name)
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if nofile == resource.RLIM_INFINITY:
        nofile = 65536
    os.makedirs(os.path.join(prefix, "logs"), exist_ok=True)
    conf = f"""
worker_processes {workers};
worker_rlimit_nofile {nofile};
error_log {prefix}/logs/error.log warn;
pid {prefix}/nginx.pid;
daemon off;
events {{ worker_connections 16384; }}
http {{
  access_log off;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  keepalive_requests 1000000;
  keepalive_timeout 75s;
{body}
}}
"""
    path = os.path.join(prefix, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return prefix, path


def sluice_supports(binary, flag):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True)
    return flag in out.stdout + out.stderr


def fetch(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read().decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--bin", required=True, help="directory with sluice, sluicectl, sluice-mock-provider")
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--catalog", required=True)
    parser.add_argument("--portkey", required=True, help="path of the Portkey gateway's start-server.js")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--out", required=True)
    parser.add_argument("--bound-ms", type=float, default=5.0)
    parser.add_argument("--steady-rate", type=float, default=2000)
    parser.add_argument("--sluice-threads", type=int, default=5000)
    parser.add_argument("--only", default="",
                        help="comma-separated lanes to measure (direct and nginx always run); leaves out Portkey, "
                             "the fleet and streaming unless named (portkey, fleet, streams)")
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="sluice-bench-")
    procs = Processes(workdir)
    bench = Bench(args)
    res = bench.results
    t_start = time.time()
    res["loadavg_start"] = open("/proc/loadavg").read().split()[:3]
    try:
        run_all(args, bench, procs, workdir)
    finally:
        res["sluice_error_keys"] = procs.keep_logs(args.out)
        procs.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    res["elapsed_s"] = round(time.time() - t_start, 1)

    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    with open(os.path.join(args.out, "runs", f"results-{res['started'][:19].replace(':', '-')}.json"), "w") as f:
        json.dump(res, f)
    import report  # bench/report.py
    report.write(res, args.out)
    log(f"done in {res['elapsed_s']} s: {args.out}/results.md")


def run_all(args, bench, procs, workdir):
    res = bench.results
    binary = lambda name: os.path.join(args.bin, name)

    # The paced mock (streams) and, from its own answer, the static upstream.
    mock, mock_port = procs.start("mock", [binary("sluice-mock-provider"), "--listen", "127.0.0.1:0", "--quiet",
                                           "--threads", "12000"], wait_listening=True)
    answer = fetch(f"http://127.0.0.1:{mock_port}/v1/chat/completions", DIRECT_BODY, {"Authorization": "Bearer k"})
    anthropic_answer = fetch(f"http://127.0.0.1:{mock_port}/v1/messages", ANTHROPIC_DIRECT_BODY,
                             {"x-api-key": "k", "anthropic-version": "2023-06-01"})
    if any(c in text for text in (answer, anthropic_answer) for c in "'$\\"):
        raise RuntimeError("the mock's answer cannot be quoted in nginx's configuration")
    static_port = free_port()
    _, static_conf = nginx_conf(workdir, "static", static_port, 1, f"""
  server {{
    listen 127.0.0.1:{static_port} backlog=4096;
    default_type application/json;
    location /anthropic/ {{ return 200 '{anthropic_answer}'; }}
    location /model/ {{ return 200 '{anthropic_answer}'; }}
    location / {{ return 200 '{answer}'; }}
  }}""")
    static, _ = procs.start("static", ["nginx", "-p", os.path.dirname(static_conf), "-c", static_conf])
    # The traced lane's collector stand-in: a process of its own, as a real collector is, so that a
    # batch it reads never holds up the upstream's answers (the static nginx has one worker).
    collector_port = free_port()
    _, collector_conf = nginx_conf(workdir, "collector", collector_port, 1, f"""
  server {{
    listen 127.0.0.1:{collector_port} backlog=4096;
    client_max_body_size 64m;
    location / {{ return 200 ''; }}
  }}""")
    procs.start("collector", ["nginx", "-p", os.path.dirname(collector_conf), "-c", collector_conf])
    wait_port(collector_port)
    wait_port(static_port)

    proxy_port = free_port()
    _, proxy_conf = nginx_conf(workdir, "proxy", proxy_port, "auto", f"""
  upstream static_upstream {{ server 127.0.0.1:{static_port}; keepalive 256; keepalive_requests 1000000; }}
  upstream mock_upstream {{ server 127.0.0.1:{mock_port}; keepalive 1024; keepalive_requests 1000000; }}
  server {{
    listen 127.0.0.1:{proxy_port} backlog=4096;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    location /stream/ {{ proxy_pass http://mock_upstream; proxy_buffering off; proxy_read_timeout 60s; }}
    location / {{ proxy_pass http://static_upstream; }}
  }}""")

    openai_stream = {"model": "gpt-bench", "stream": True, "messages": [{"role": "user", "content": "Hello there"}]}
    targets = []
    targets.append(Target("direct", "direct (upstream)", static_port, "/v1/chat/completions",
                          ["Authorization: Bearer k"], DIRECT_BODY, static.pid,
                          stream_path="/v1/chat/completions", stream_body=openai_stream,
                          stream_headers=["Authorization: Bearer k"]))
    # Streaming "direct" goes to the mock: measured with its own port below.
    targets[0].stream_port = mock_port
    targets[0].mock_pid = mock.pid

    nginx, _ = procs.start("nginx", ["nginx", "-p", os.path.dirname(proxy_conf), "-c", proxy_conf])
    wait_port(proxy_port)
    targets.append(Target("nginx", "nginx proxy_pass", proxy_port, "/v1/chat/completions",
                          ["Authorization: Bearer k"], DIRECT_BODY, nginx.pid,
                          stream_path="/stream/v1/chat/completions", stream_body=openai_stream,
                          stream_headers=["Authorization: Bearer k"]))

    # Sluice, without and with the database.
    sluice_env = dict(os.environ, BENCH_UPSTREAM_KEY="bench-upstream-key", BENCH_AWS_ACCESS_KEY_ID="AKIDBENCHEXAMPLE",
                      BENCH_AWS_SECRET_ACCESS_KEY="bench-secret-access-key",
                      BENCH_STATIC_URL=f"http://127.0.0.1:{static_port}", BENCH_MOCK_URL=f"http://127.0.0.1:{mock_port}")
    sluice_env.pop("SLUICE_DATABASE_URL", None)
    has_auth = sluice_supports(binary("sluice"), "--insecure-no-auth")
    res["sluice_auth"] = has_auth
    sluice_common = [binary("sluice"), "--services", args.catalog, "--listen", "127.0.0.1:0",
                     "--threads", str(args.sluice_threads)]
    configs = [("", [] + (["--insecure-no-auth"] if has_auth else []), None, {})]
    key_for_fleet = [None]
    if args.database_url:
        key = prepare_database(args, binary, res)
        key_for_fleet[0] = key
        configs.append(("+db", ["--database-url", args.database_url, "--audit-spool",
                                os.path.join(workdir, "audit.spool")], key, {}))
        # The same, traced: every request sampled, its spans and its audit row (as a log record)
        # exported over OTLP/HTTP protobuf to the collector stand-in, which answers 200 to anything.
        configs.append(("+otel", ["--database-url", args.database_url, "--audit-spool",
                                  os.path.join(workdir, "audit-otel.spool")], key,
                        {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector_port}",
                         "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": f"http://127.0.0.1:{collector_port}/v1/logs",
                         "OTEL_TRACES_SAMPLER": "always_on", "OTEL_BSP_SCHEDULE_DELAY": "1000"}))
    else:
        res["notes"].append("no database URL: the audit lanes were not run")
    anthropic_stream = {"model": "bench-stream", "max_tokens": 256, "stream": True,
                        "messages": [{"role": "user", "content": "Hello there"}]}
    for suffix, flags, key, extra_env in configs:
        idle_before = None
        sluice, port = procs.start(f"sluice{suffix}", sluice_common + flags, env={**sluice_env, **extra_env},
                                   wait_listening=True)
        time.sleep(1.0)
        idle_before = rss_kib(sluice.pid)
        bearer = [f"Authorization: Bearer {key}"] if key else []
        xkey = [f"x-api-key: {key}"] if key else []
        script = []
        if suffix == "+otel":
            # Request/response only: the cost of tracing against the same lane untraced (+db).
            o = Target("sluice-pass+otel", "Sluice passthrough + audit, traced (100 %)", port, "/v1/chat/completions",
                       bearer, PASS_BODY, sluice.pid, sluice=True)
            o.idle_rss = idle_before
            targets.append(o)
            continue
        p = Target(f"sluice-pass{suffix}", f"Sluice passthrough{' + audit' if suffix else ''}", port,
                   "/v1/chat/completions", bearer, PASS_BODY, sluice.pid,
                   stream_path="/v1/chat/completions", stream_headers=bearer + script,
                   stream_body={**openai_stream, "model": "bench-stream"}, sluice=True)
        t = Target(f"sluice-trans{suffix}", f"Sluice translation{' + audit' if suffix else ''}", port,
                   "/v1/messages", xkey + ["anthropic-version: 2023-06-01"], TRANS_BODY, sluice.pid,
                   stream_path="/v1/messages", stream_headers=xkey + ["anthropic-version: 2023-06-01"] + script,
                   stream_body=anthropic_stream, marker=ANTHROPIC_MARKER, sluice=True)
        p.idle_rss = t.idle_rss = idle_before
        targets += [p, t]
        if not suffix:
            # Data protection: the same OpenAI client to a `public` endpoint of the same upstreams.
            m = Target("sluice-masked", "Sluice masked (data protection)", port, "/v1/chat/completions", bearer,
                       MASKED_BODY, sluice.pid, stream_path="/v1/chat/completions", stream_headers=bearer,
                       stream_body={**MASKED_BODY, "model": "bench-masked-stream", "stream": True}, sluice=True)
            m.idle_rss = idle_before
            targets.append(m)
            # Bedrock against the anthropic passthrough: same client, same answer, same upstream.
            anth_headers = ["x-api-key: k", "anthropic-version: 2023-06-01"]
            a = Target("sluice-anth", "Sluice Anthropic passthrough", port, "/v1/messages", anth_headers,
                       ANTHROPIC_BODY, sluice.pid, marker=ANTHROPIC_MARKER, sluice=True)
            b = Target("sluice-bedrock", "Sluice Bedrock (SigV4, InvokeModel)", port, "/v1/messages", anth_headers,
                       {**ANTHROPIC_BODY, "model": "bench-bedrock"}, sluice.pid, marker=ANTHROPIC_MARKER, sluice=True)
            a.idle_rss = b.idle_rss = idle_before
            targets += [a, b]

    only = set(filter(None, args.only.split(",")))
    if only:
        targets = [tg for tg in targets if tg.name in only or tg.name in ("direct", "nginx")]
        res["notes"].append(f"only these lanes: {', '.join(tg.name for tg in targets)}")
    if not only or "portkey" in only:
        targets.append(portkey_target(args, procs, static_port, mock_port))
    measure_all(args, bench, procs, workdir, binary, res, targets, only, key_for_fleet, static_port, sluice_env,
                sluice_common, mock)


def portkey_target(args, procs, static_port, mock_port):
    portkey_port = free_port()
    portkey, _ = procs.start("portkey", ["node", args.portkey, f"--port={portkey_port}", "--headless"])
    wait_port(portkey_port)
    openai_stream = {"model": "gpt-bench", "stream": True, "messages": [{"role": "user", "content": "Hello there"}]}
    pk_headers = ["Authorization: Bearer k", "x-portkey-provider: openai"]
    return Target("portkey", "Portkey gateway", portkey_port, "/v1/chat/completions",
                  pk_headers + [f"x-portkey-custom-host: http://127.0.0.1:{static_port}/v1"], DIRECT_BODY,
                  portkey.pid, stream_path="/v1/chat/completions", stream_body=openai_stream,
                  stream_headers=pk_headers + [f"x-portkey-custom-host: http://127.0.0.1:{mock_port}/v1",
                                               "x-portkey-forward-headers: x-mock-script"])


def measure_all(args, bench, procs, workdir, binary, res, targets, only, key_for_fleet, static_port, sluice_env,
                sluice_common, mock):

    # Idle RSS: after start and one request per lane (first-request set-up is not idle state).
    time.sleep(1.0)
    for tg in targets:
        entry = res["targets"].setdefault(tg.name, {"label": tg.label})
        fetch(f"http://127.0.0.1:{tg.port}{tg.path}", tg.body, dict(h.split(": ", 1) for h in tg.headers))
    time.sleep(0.5)
    for tg in targets:
        res["targets"][tg.name]["rss_kib"] = {"start": getattr(tg, "idle_rss", None) or rss_kib(tg.pid),
                                              "idle": rss_kib(tg.pid)}

    bench.latency_matrix(targets)

    for tg in targets[1:]:
        bench.frontier(tg, targets[0])

    log(f"steady {args.steady_rate:.0f} req/s")
    for tg in targets:
        capacity = res["targets"][tg.name]["closed"]["16"]["rps"]
        if capacity < args.steady_rate:
            res["targets"][tg.name]["steady"] = {"rate": args.steady_rate,
                                                 "skipped": f"its closed-loop throughput is {capacity:.0f} req/s"}
            continue
        bench.steady(tg, args.steady_rate)

    if args.database_url and key_for_fleet[0] and (not only or "fleet" in only):
        fleet_lane(args, bench, procs, workdir, binary, key_for_fleet[0], static_port, sluice_env, sluice_common)

    # After load: the request lanes are done; give the processes a few seconds of quiet.
    time.sleep(5.0)
    for tg in targets:
        res["targets"][tg.name]["rss_kib"]["after"] = rss_kib(tg.pid)

    # Streaming: direct is the mock itself.
    direct_stream = Target("direct", "", targets[0].stream_port, "", [], None, mock.pid,
                           stream_path=targets[0].stream_path, stream_headers=targets[0].stream_headers,
                           stream_body=targets[0].stream_body)
    stream_targets = [direct_stream] + targets[1:]
    stream_targets = [tg for tg in stream_targets if tg.stream_path]
    if only and "streams" not in only:
        stream_targets = []
    for tg in stream_targets:
        log(f"streaming {tg.name}")
        bench.streaming(tg)
    res["loadavg_before_ramp"] = open("/proc/loadavg").read().split()[:3]
    for tg in stream_targets:
        if (tg.name.endswith("+db") and "trans" in tg.name) or tg.name == "sluice-masked":
            continue  # time: the passthrough lane (with the database) stands for the others
        if bench.quick and tg.name not in ("direct", "nginx", "sluice-pass"):
            continue
        bench.streams_ramp(tg)
        if tg.name != "direct":
            res["targets"][tg.name]["rss_kib"]["after_streams"] = rss_kib(tg.pid)


def fleet_lane(args, bench, procs, workdir, binary, key, static_port, sluice_env, sluice_common):
    """Three replicas with keys and audit on one PostgreSQL behind one nginx (round robin, keep-alive
    pool): the aggregate throughput, the CPU of the replicas and of PostgreSQL per request, and the
    audit rows written against the requests answered."""
    res = bench.results
    replicas = []
    for i in range(1, 4):
        proc, port = procs.start(f"sluice-fleet-{i}", sluice_common + [
            "--database-url", args.database_url, "--audit-spool", os.path.join(workdir, f"fleet-{i}.spool"),
            "--replica-name", f"bench-fleet-{i}"], env=sluice_env, wait_listening=True)
        replicas.append((proc, port))
    lb_port = free_port()
    servers = "\n".join(f"    server 127.0.0.1:{port};" for _, port in replicas)
    _, lb_conf = nginx_conf(workdir, "fleet-lb", lb_port, "auto", f"""
  upstream fleet {{
{servers}
    keepalive 256; keepalive_requests 1000000;
  }}
  server {{
    listen 127.0.0.1:{lb_port} backlog=4096;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    location / {{ proxy_pass http://fleet; }}
  }}""")
    lb, _ = procs.start("fleet-lb", ["nginx", "-p", os.path.dirname(lb_conf), "-c", lb_conf])
    wait_port(lb_port)
    fetch(f"http://127.0.0.1:{lb_port}/v1/chat/completions", PASS_BODY, {"Authorization": f"Bearer {key}"})

    def rows():
        out = subprocess.run(["psql", "-X", "-At", args.database_url, "-c",
                              "SELECT count(*) FROM ai_requests WHERE replica LIKE 'bench-fleet-%'"],
                             capture_output=True, text=True)
        return int(out.stdout.strip() or 0) if out.returncode == 0 else None

    target = Target("sluice-fleet", "three Sluice replicas behind nginx", lb_port, "/v1/chat/completions",
                    [f"Authorization: Bearer {key}"], PASS_BODY, lb.pid)
    connections = 48
    runs = []
    for r in range(bench.rounds):
        log(f"fleet round {r + 1}/{bench.rounds}: three replicas, c={connections}")
        rows0 = rows()
        sluice0 = sum(cpu_ticks(p.pid) for p, _ in replicas)
        result = bench.run(target, connections=connections, duration=bench.lat_duration * 2, warmup=bench.lat_warmup)
        sluice1 = sum(cpu_ticks(p.pid) for p, _ in replicas)
        time.sleep(1.0)  # a writer's last partial batch (flush interval 200 ms)
        rows1 = rows()
        answered = result["requests_all"] - result["failures"]  # warm-up included, as the rows are
        result["replicas_cpu_us"] = (sluice1 - sluice0) * TICK_US
        result["rows_written"] = None if rows0 is None or rows1 is None else rows1 - rows0
        result["answered"] = answered
        runs.append(result)
    res["fleet"] = {
        "replicas": len(replicas), "connections": connections,
        "rps": med([x["rps"] for x in runs]),
        "p50_us": med([x["latency_us"]["p50"] for x in runs]),
        "p99_us": med([x["latency_us"]["p99"] for x in runs]),
        "replicas_cpu_us_per_req": med([x["replicas_cpu_us"] / max(1, x["requests_all"]) for x in runs]),
        "nginx_cpu_us_per_req": med([x["target_cpu_us"] / max(1, x["requests_all"]) for x in runs]),
        "postgres_cpu_ms_per_1000": med([x["postgres_cpu_us"] / max(1, x["requests_all"]) for x in runs]),
        "failures": sum(x["failures"] for x in runs),
        "answered": sum(x["answered"] for x in runs),
        "rows_written": None if any(x["rows_written"] is None for x in runs) else sum(x["rows_written"] for x in runs),
        "runs": runs,
    }
    for proc, _ in replicas + [(lb, None)]:
        procs.stop(proc)


def prepare_database(args, binary, res):
    """Migrates the benchmark's database and, when the gateway checks keys, makes a member and a key."""
    env = dict(os.environ, SLUICE_DATABASE_URL=args.database_url)
    ctl = binary("sluicectl")
    subprocess.run([ctl, "--services", args.catalog, "migrate"], env=env, check=True, capture_output=True)
    help_text = subprocess.run([ctl, "--help"], capture_output=True, text=True).stdout
    if "users" not in help_text:
        return None
    name = f"bench-{int(time.time())}"
    subprocess.run([ctl, "users", "add", name, "--role", "member"], env=env, check=True, capture_output=True)
    out = subprocess.run([ctl, "keys", "create", name, "--name", "bench"], env=env, check=True,
                         capture_output=True, text=True).stdout
    key = out.strip().splitlines()[-1].strip()
    res["notes"].append(f"requests on the +db lanes carry an API key of member {name}")
    return key


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
