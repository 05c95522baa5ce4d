#!/usr/bin/python3
"""Write the link order of orientationd's code (`make order-file`).

    benchmarks/compare/order_file.py [--bin-dir DIR] [--output scripts/orientationd.order]

Runs the release orientationd under valgrind's callgrind through what the benchmark
measures, on the same umockdev devices and a private bus (compare.py's own pieces): a
start and a Get, an idle second, a started client turned through the four orientations
on the polled sensor, a stop; then a start on the buffered sensor with frames flowing,
and the compatibility interface's claim. Every function that ran is written, one
(mangled) symbol per line, first seen first: what a start runs comes before what a
started client runs, so an idle daemon touches mostly the front of the list.

`make release` links with lld's --symbol-ordering-file pointing at that list, so the
functions a running daemon uses sit together in a few pages instead of being spread
over the 5 MB of code the static Swift runtime brings: the kernel maps a file page
around every page touched (fault-around), so the spread, not the amount of code, is
what the resident set pays for. A stale list only costs memory, never correctness: a
symbol that no longer exists is skipped, a new function is placed after the listed
ones. Regenerate it after larger changes; BENCHMARKS.md shows what it buys.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import dbus
import dbus.mainloop.glib

import compare
from compare import (BUFFER_DEVICE, BUFFER_NODE, BUFFER_TRIGGER, CHILDREN, POLL_DEVICE, RAW, ROOT, TURN,
                     BenchError, Bus, Orientationd, Testbed, log)


class Profiled(Orientationd):
    """orientationd under callgrind: every run appends its own output file."""
    label = "orientationd (callgrind)"

    def __init__(self, bus, testbed, binary, out_dir, extra):
        super().__init__(bus, testbed, binary)
        self.out_dir = out_dir
        self.extra = extra
        self.runs = 0

    def command(self):
        self.runs += 1
        out = os.path.join(self.out_dir, f"callgrind.{self.runs}")
        return ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
                "--dump-instr=no", f"--callgrind-out-file={out}",
                *super().command(), *self.extra]


def exercise_poll(daemon, testbed):
    daemon.spawn()
    daemon.run_until(lambda: False, 1.0)
    daemon.claim()
    for target in TURN:
        index = len(daemon.events)
        testbed.rewrite_raw(RAW[target])
        if daemon.wait_orientation(target, index, 20) is None:
            raise BenchError(f"no {target} within 20 s under callgrind")
    daemon.release()
    daemon.stop()


def exercise_buffer(daemon, testbed):
    testbed.command(op="stream", node=BUFFER_NODE, raw=RAW["normal"], ms=20)
    try:
        daemon.spawn()
        daemon.claim()
        for target in ("left-up", "normal"):
            index = len(daemon.events)
            testbed.command(op="pose", raw=RAW[target])
            if daemon.wait_orientation(target, index, 20) is None:
                raise BenchError(f"no {target} within 20 s of the buffer frame under callgrind")
        daemon.release()
        # The compatibility interface, as GNOME and KDE use it.
        proxy = daemon.connection.get_object(compare.ISP_NAME, compare.ISP_PATH, introspect=False)
        proxy.ClaimAccelerometer(dbus_interface=compare.ISP_NAME, timeout=20)
        proxy.Get(compare.ISP_NAME, "AccelerometerOrientation", dbus_interface=compare.PROPS, timeout=20)
        proxy.ReleaseAccelerometer(dbus_interface=compare.ISP_NAME, timeout=20)
    finally:
        daemon.stop()
        testbed.command(op="stream", node=BUFFER_NODE, raw=RAW["normal"], ms=0)


def functions(paths):
    """Function names in callgrind outputs, first seen first, each once."""
    seen, order = set(), []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^(?:fn|cfn)=(?:\(\d+\) )?(\S+)", line)
                if m and m.group(1) not in seen and not m.group(1).startswith("0x"):
                    seen.add(m.group(1))
                    order.append(m.group(1))
    return order


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--output", default=os.path.join(ROOT, "scripts", "orientationd.order"))
    args = parser.parse_args()
    binary = os.path.join(args.bin_dir, "orientationd")
    if not os.access(binary, os.X_OK):
        raise BenchError(f"{binary} is missing (make release)")
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    with tempfile.TemporaryDirectory(prefix="orientationd-order.") as directory:
        poll_bed = Testbed([POLL_DEVICE])
        buffer_bed = Testbed([BUFFER_DEVICE, BUFFER_TRIGGER])
        bus = Bus(directory, "session")
        daemon = Profiled(bus, poll_bed, binary, directory, [])
        log("callgrind: start, idle, a client turned through four orientations (polled sensor)")
        exercise_poll(daemon, poll_bed)
        daemon.testbed = buffer_bed
        daemon.extra = ["--sensor-proxy-compat"]
        log("callgrind: start, a client on the buffered sensor, the compatibility claim")
        exercise_buffer(daemon, buffer_bed)
        poll_bed.close()
        buffer_bed.close()
        names = functions(sorted(os.path.join(directory, n) for n in os.listdir(directory)
                                 if n.startswith("callgrind.")))
        CHILDREN.stop_all()
    if len(names) < 500:
        raise BenchError(f"only {len(names)} functions recorded: callgrind did not see the daemon run")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))
    log(f"{len(names)} functions written to {os.path.relpath(args.output, ROOT)}")


if __name__ == "__main__":
    try:
        main()
    except (BenchError, dbus.DBusException, subprocess.SubprocessError) as e:
        log(str(e))
        sys.exit(1)
    finally:
        CHILDREN.stop_all()
