#!/usr/bin/python3
"""The one umockdev helper, for the integration tests
(Tests/IntegrationTests/Support/UmockdevTestbed.swift) and the benchmarks
(benchmarks/compare/compare.py).

Owns a umockdev testbed and runs a GLib main loop; run it with Debian's python3 (gi with
UMockdev) under libumockdev-preload, so that the testbed's own uevent sender resolves
devices through libudev too. Takes one JSON command per line on standard input and
answers one JSON line ({"ok": true, ...} or {"ok": false, "error": ...}); the first line
it prints is {"ok": true, "root": DIR}. Commands ("op"):

  add     text: a umockdev device description        attr   dev, name, value
  prop    dev, name, value                           uevent dev, action
  remove  dev (a "remove" uevent, then gone)         write  node, hex (bytes to the node)
  ioctl   node, path (an ioctl recording)
  stream  node, raw [x, y, z], ms: an IIO buffer frame (s16 x, y, z, s64 timestamp)
          every ms milliseconds (0 stops)
  pose    raw [x, y, z]: one frame now; answers its CLOCK_MONOTONIC time "t" (ns)
  play    node, frames [[t_ms, x, y, z], ...]: each frame written at its t_ms after now
          (a recording at its own timing, stamped when written); answers the
          CLOCK_MONOTONIC time "t" (ns) that t_ms counts from
"""
import json
import os
import struct
import sys
import time

import gi

gi.require_version("UMockdev", "1.0")
from gi.repository import GLib, UMockdev  # noqa: E402

testbed = UMockdev.Testbed.new()
stream = {"raw": (0, -1000, 0), "node": None, "source": 0}


def frame():
    x, y, z = stream["raw"]
    os.write(testbed.get_dev_fd(stream["node"]), struct.pack("<hhhxxq", x, y, z, time.monotonic_ns()))


def tick():
    frame()
    return True


def play_next(node, frames, start_ns, i):
    """Writes every frame that is due and schedules the next: paced by the monotonic
    clock from the start, so timer slack does not add up."""
    now = time.monotonic_ns()
    while i < len(frames) and start_ns + frames[i][0] * 1_000_000 <= now:
        x, y, z = frames[i][1:]
        os.write(testbed.get_dev_fd(node), struct.pack("<hhhxxq", x, y, z, time.monotonic_ns()))
        i += 1
    if i < len(frames):
        wait_ms = max(0, (start_ns + frames[i][0] * 1_000_000 - time.monotonic_ns()) // 1_000_000)
        GLib.timeout_add(wait_ms, play_next, node, frames, start_ns, i)
    return False


def handle(r):
    op = r["op"]
    if op == "add":
        testbed.add_from_string(r["text"])
    elif op == "attr":
        testbed.set_attribute(r["dev"], r["name"], r["value"])
    elif op == "prop":
        testbed.set_property(r["dev"], r["name"], r["value"])
    elif op == "uevent":
        testbed.uevent(r["dev"], r["action"])
    elif op == "remove":
        testbed.uevent(r["dev"], "remove")
        testbed.remove_device(r["dev"])
    elif op == "write":
        fd = testbed.get_dev_fd(r["node"])
        if fd < 0:
            raise Exception("no pty for " + r["node"])
        os.write(fd, bytes.fromhex(r["hex"]))
    elif op == "ioctl":
        testbed.load_ioctl(r["node"], r["path"])
    elif op == "stream":
        stream["node"] = r["node"]
        stream["raw"] = tuple(r["raw"])
        if stream["source"]:
            GLib.source_remove(stream["source"])
            stream["source"] = 0
        if r["ms"] > 0:
            stream["source"] = GLib.timeout_add(r["ms"], tick)
    elif op == "play":
        start = time.monotonic_ns()
        play_next(r["node"], r["frames"], start, 0)
        return {"t": start}
    elif op == "pose":
        stream["raw"] = tuple(r["raw"])
        t = time.monotonic_ns()
        frame()
        return {"t": t}
    else:
        raise Exception("unknown op " + op)
    return {}


def reply(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def readable(channel, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    try:
        reply(ok=True, **handle(json.loads(line)))
    except Exception as e:  # every failure is an answer, never the helper's end
        reply(ok=False, error=str(e))
    return True


loop = GLib.MainLoop()
GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, readable)
reply(ok=True, root=testbed.get_root_dir())
loop.run()
