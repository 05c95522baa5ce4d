#!/usr/bin/python3
"""Measures a release orientationd on a private bus; prints figures, not verdicts.

Run by scripts/bench-daemon.sh with Debian's /usr/bin/python3 (python3-dbus, python3-gi):

    measure.py --address ADDR --daemon PATH [--starts N] [--idle-seconds S]

(a) start -> name acquired: the helper subscribes to NameOwnerChanged for
    org.orientationd.Orientation1 before it spawns the daemon, takes the monotonic
    clock just before the spawn, and stops it when the signal with a new owner is
    dispatched. The figure thus includes fork/exec from Python and the bus's
    signal delivery (both well under a millisecond here). Each run is stopped with
    SIGTERM; its exit status and the name's release are awaited before the next.
(b) idle memory: VmRSS (/proc/PID/status) and Pss (/proc/PID/smaps_rollup) of a
    daemon running for 1 s with no client.
(c) voluntary context switches summed over /proc/PID/task/*/status over an idle
    window with no started client, then with one started client (a client of this
    helper, created with CreateClient and started), for information.
Every wait is bounded; the daemon is killed on any failure.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "org.orientationd.Orientation1"
PATH = "/org/orientationd/Orientation1"


def fail(message):
    print(f"measure: {message}", file=sys.stderr)
    sys.exit(1)


class Bench:
    def __init__(self, address, daemon, pid_file):
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        self.daemon = daemon
        self.pid_file = pid_file
        self.address = address
        self.bus = dbus.bus.BusConnection(address)
        self.loop = GLib.MainLoop()
        self.owner = ""
        self.owner_time = None
        self.bus.add_signal_receiver(self.on_owner_changed, signal_name="NameOwnerChanged",
                                     dbus_interface="org.freedesktop.DBus",
                                     path="/org/freedesktop/DBus", arg0=NAME)
        # Make sure the match rule is in place before the first spawn.
        self.bus.get_name_owner("org.freedesktop.DBus")

    def on_owner_changed(self, name, old, new):
        now = time.monotonic_ns()
        self.owner = str(new)
        if new:
            self.owner_time = now
        self.loop.quit()

    def run_until(self, predicate, seconds):
        return run_until(self.loop, predicate, seconds)

    def spawn(self):
        self.owner_time = None
        start = time.monotonic_ns()
        proc = subprocess.Popen([self.daemon, "--address", self.address, "--sensor", "simulated"],
                                stdin=subprocess.DEVNULL)
        if self.pid_file:  # so that the calling script can kill it if this helper dies
            with open(self.pid_file, "w") as f:
                f.write(f"{proc.pid}\n")
        if not self.run_until(lambda: self.owner_time is not None or proc.poll() is not None, 5):
            proc.kill()
            proc.wait(5)
            fail("the daemon did not acquire the name within 5 s")
        if self.owner_time is None:
            fail(f"the daemon exited with status {proc.returncode} before acquiring the name")
        return proc, (self.owner_time - start) / 1e6

    def stop(self, proc):
        proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
            fail("the daemon did not stop within 5 s of SIGTERM")
        if not self.run_until(lambda: self.owner == "", 5):
            fail("the name was not released within 5 s of the daemon's exit")
        return status


def run_until(loop, predicate, seconds):
    """Runs a GLib main loop until predicate() holds or seconds pass; returns predicate().

    Handlers that change what predicate() looks at quit the loop to have it re-checked."""
    deadline = time.monotonic() + seconds
    while not predicate():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        fired = []

        def on_timeout():
            fired.append(True)
            loop.quit()
            return False

        source = GLib.timeout_add(max(1, int(left * 1000)), on_timeout)
        loop.run()
        if not fired:
            GLib.source_remove(source)
    return predicate()


def memory(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    with open(f"/proc/{pid}/smaps_rollup") as f:
        pss = next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
    threads = len(os.listdir(f"/proc/{pid}/task"))
    return rss, pss, threads


def voluntary_switches(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches:"))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--daemon", required=True)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--binary", action="append", default=[], help="a binary whose size to report")
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--pid-file", help="write the PID of each daemon started here to this file")
    args = parser.parse_args()
    if not 1 <= args.starts <= 200:
        fail("--starts must be between 1 and 200")

    bench = Bench(args.address, args.daemon, args.pid_file)
    results = {}

    # (a) start -> name acquired
    times = []
    for _ in range(args.starts):
        proc, ms = bench.spawn()
        times.append(ms)
        status = bench.stop(proc)
        if status != 0:
            fail(f"the daemon exited with status {status} on SIGTERM")
    results["start_ms"] = {"runs": len(times), "median": statistics.median(times), "min": min(times),
                           "max": max(times)}

    # (b), (c) one long-lived daemon
    proc, _ = bench.spawn()
    try:
        bench.run_until(lambda: False, 1.0)  # settle
        rss, pss, threads = memory(proc.pid)
        results["idle"] = {"vmrss_kib": rss, "pss_kib": pss, "threads": threads}

        before = voluntary_switches(proc.pid)
        bench.run_until(lambda: False, args.idle_seconds)
        after = voluntary_switches(proc.pid)
        results["idle_switches"] = {"seconds": args.idle_seconds, "delta": after - before}

        manager = bench.bus.get_object(NAME, PATH)
        client_path = manager.CreateClient(dbus.Dictionary({}, signature="sv"), dbus_interface=NAME)
        client = bench.bus.get_object(NAME, client_path)
        client.Start(dbus_interface=NAME + ".Client")
        bench.run_until(lambda: False, 0.2)
        before = voluntary_switches(proc.pid)
        bench.run_until(lambda: False, args.idle_seconds)  # dispatches the client's signals
        after = voluntary_switches(proc.pid)
        rss_started, pss_started, threads_started = memory(proc.pid)
        results["started_client"] = {"seconds": args.idle_seconds, "switches_delta": after - before,
                                     "vmrss_kib": rss_started, "pss_kib": pss_started,
                                     "threads": threads_started}
        client.Close(dbus_interface=NAME + ".Client")
        status = bench.stop(proc)
        results["final_exit_status"] = status
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    results["sizes"] = {os.path.basename(b): sizes(b) for b in args.binary}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    report(results)


def sizes(path):
    """(bytes on disk, bytes once stripped of symbols and debug info)."""
    stripped = path + ".stripped-for-bench"
    try:
        subprocess.run(["strip", "-o", stripped, path], check=True, timeout=60)
        return os.path.getsize(path), os.path.getsize(stripped)
    finally:
        if os.path.exists(stripped):
            os.unlink(stripped)


def report(r):
    s = r["start_ms"]
    i = r["idle"]
    c = r["started_client"]
    rows = [
        ("start -> name acquired, median", f"{s['median']:.2f} ms", f"{s['runs']} starts, min {s['min']:.2f} ms"),
        ("start -> name acquired, max", f"{s['max']:.2f} ms", ""),
        ("idle VmRSS (no client)", f"{i['vmrss_kib'] / 1024:.2f} MiB", f"{i['vmrss_kib']} KiB, {i['threads']} thread(s)"),
        ("idle Pss (no client)", f"{i['pss_kib'] / 1024:.2f} MiB", f"{i['pss_kib']} KiB"),
        (f"voluntary ctxt switches, {r['idle_switches']['seconds']:g} s idle",
         str(r["idle_switches"]["delta"]), "no started client, all threads"),
        (f"voluntary ctxt switches, {c['seconds']:g} s, 1 client",
         str(c["switches_delta"]), "for information: sensor read while started"),
        ("VmRSS with 1 started client", f"{c['vmrss_kib'] / 1024:.2f} MiB", f"Pss {c['pss_kib']} KiB"),
    ]
    for name, (raw, stripped) in r["sizes"].items():
        rows.append((f"size of {name}", f"{raw / 1e6:.2f} MB", f"{stripped / 1e6:.2f} MB stripped"))
    width = max(len(row[0]) for row in rows)
    vwidth = max(len(row[1]) for row in rows)
    print(f"{'measure'.ljust(width)}  {'value'.rjust(vwidth)}  notes")
    print(f"{'-' * width}  {'-' * vwidth}  {'-' * 5}")
    for name, value, note in rows:
        print(f"{name.ljust(width)}  {value.rjust(vwidth)}  {note}")


if __name__ == "__main__":
    main()
