#!/usr/bin/env python3
"""Memory a gateway replica spends per idle keep-alive connection and per open stream.

Starts sluice-mock-provider and sluice (with PostgreSQL, keys checked and audited as in
production) on loopback, on a scratch database and a copy of the shipped catalog whose providers
forward x-mock-script; reads VmRSS from /proc/PID/status after one request, with N idle
keep-alive connections open (each has answered one request), and with S streams open at once
(each streaming one event per second through the gateway). Prints the figures docs/deploying.md
quotes. Run from the repository's root after a build (scripts/setup.sh):

    SLUICE_TEST_DATABASE_URL=postgresql://sluice:sluice@127.0.0.1:5432/sluice \
        nice python3 bench/connection_memory.py --connections 2000 --streams 500
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def start(argv, env):
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    match = re.match(r"listening on (\S+):(\d+)", line)
    if not match:
        process.kill()
        raise RuntimeError(f"{argv[0]} did not start: {line!r}")
    return process, int(match.group(2))


def request_bytes(method, path, key, body=None, headers=None):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"x-api-key: {key}"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body is not None:
        lines += ["content-type: application/json", f"content-length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n" + (body or "")).encode()


def read_head_and_some(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed before the answer's head")
        data += chunk
    return data


def read_whole_answer(sock):
    data = read_head_and_some(sock)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    while len(rest) < length:
        rest += sock.recv(65536)
    return head


def settle(pid, seconds=2.0):
    time.sleep(seconds)
    return rss_kib(pid)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", default=os.environ.get("SLUICE_BIN_DIR", "build/bin"))
    parser.add_argument("--database-url", default=os.environ.get("SLUICE_TEST_DATABASE_URL"))
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--workers", type=int, default=-1)
    args = parser.parse_args()
    if not args.database_url:
        sys.exit("connection_memory: give --database-url or SLUICE_TEST_DATABASE_URL")

    scratch = f"sluice_memory_{os.getpid()}"
    url = urllib.parse.urlparse(args.database_url)
    admin_url = url._replace(path="/postgres").geturl()
    db_url = url._replace(path=f"/{scratch}").geturl()
    subprocess.run(["psql", "-X", "-q", admin_url, "-c", f"CREATE DATABASE {scratch}"], check=True)
    work = tempfile.mkdtemp(prefix="sluice-memory-")
    processes = []
    try:
        services = os.path.join(work, "services")
        shutil.copytree("services", services)
        providers = os.path.join(services, "ai/providers.yaml")
        anchor = "    user_agent: sluice/1\n"
        with open(providers) as f:
            text = f.read()
        with open(providers, "w") as f:
            f.write(text.replace(anchor, anchor + "    forward_headers: [x-mock-script]\n"))

        env = dict(os.environ)
        mock, mock_port = start([f"{args.bin_dir}/sluice-mock-provider", "--listen", "127.0.0.1:0", "--quiet",
                                 "--threads", str(args.streams + 64)], env)
        processes.append(mock)
        base = f"http://127.0.0.1:{mock_port}"
        env.update(ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY="mock-anthropic-key")
        ctl = [f"{args.bin_dir}/sluicectl", "--database-url", db_url, "--services", services]
        subprocess.run(ctl + ["migrate"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(ctl + ["users", "add", "probe", "--role", "member"], check=True, stdout=subprocess.DEVNULL)
        key = subprocess.run(ctl + ["keys", "create", "probe"], check=True, capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
        gateway, port = start([f"{args.bin_dir}/sluice", "--services", services, "--listen", "127.0.0.1:0",
                               "--database-url", db_url, "--audit-spool", os.path.join(work, "audit.spool"),
                               "--workers", str(args.workers), "--max-connections-per-peer", "0",
                               "--watch-ms", "0"], env)
        processes.append(gateway)
        pid = gateway.pid

        def connect():
            return socket.create_connection(("127.0.0.1", port))

        warm = connect()
        warm.sendall(request_bytes("GET", "/v1/models", key))
        read_whole_answer(warm)
        warm.close()
        base_kib = settle(pid)

        idle = []
        for _ in range(args.connections):
            sock = connect()
            sock.sendall(request_bytes("GET", "/v1/models", key))
            read_whole_answer(sock)
            idle.append(sock)
        idle_kib = settle(pid)
        for sock in idle:
            sock.close()
        after_idle_kib = settle(pid, 4.0)

        script = json.dumps({"chunk_delay_ms": 1000, "text": " ".join(f"tok{i}" for i in range(60))})
        body = json.dumps({"model": "claude-haiku-5-5", "max_tokens": 256, "stream": True,
                           "messages": [{"role": "user", "content": "Count slowly."}]})
        streams = []
        for _ in range(args.streams):
            sock = connect()
            sock.sendall(request_bytes("POST", "/v1/messages", key, body,
                                       {"anthropic-version": "2023-06-01", "x-mock-script": script}))
            streams.append(sock)
        for sock in streams:
            head = read_head_and_some(sock)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"a stream was refused: {head[:200]!r}")
        streams_kib = settle(pid, 3.0)
        for sock in streams:
            sock.close()

        figures = {
            "workers": args.workers,
            "rss_after_one_request_kib": base_kib,
            "idle_connections": args.connections,
            "rss_with_idle_connections_kib": idle_kib,
            "kib_per_idle_connection": round((idle_kib - base_kib) / args.connections, 2),
            "rss_after_closing_them_kib": after_idle_kib,
            "streams": args.streams,
            "rss_with_streams_kib": streams_kib,
            "kib_per_stream": round((streams_kib - after_idle_kib) / args.streams, 2),
        }
        print(json.dumps(figures, indent=2))
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                process.kill()
        subprocess.run(["psql", "-X", "-q", admin_url, "-c", f"DROP DATABASE IF EXISTS {scratch}"], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
