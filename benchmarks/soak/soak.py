#!/usr/bin/python3
"""make soak: orientationd under churn for minutes, checked for growth and for calls that
fail other than as the contract says. A benchmark, not a CI test.

    benchmarks/soak/soak.py [--seconds 600] [--warmup 60] [--bin-dir .build/release]
                            [--output BENCHMARKS.md] [--no-write]

The daemon runs on a private bus under a umockdev testbed whose IIO buffer device plays
a recording (examples/traces/quarter-turn.csv, over and over, at its own timing). Against
it, at random: clients created (random supported orientations), started, stopped and
closed; bus connections dropped with their clients still open (the daemon must clean
up after them); RotationLocked toggled; and the accelerometer unplugged and plugged
back in. Every call on an object the soak owns must succeed, and its answers must be
what the contract says (CreateClient a path under /org/orientationd/Orientation1/Client/,
Start and Stop and Close nothing, the lock as set); a call on an object whose connection
was dropped is never made.

Growth is measured in a quiet state, the same each time: every soak connection closed,
ActiveClients 0, the sensor released. At the end of the warm-up and at the end of the run
the daemon's resident memory (VmRSS), open descriptors and timers (timerfds) are read;
the soak fails if the descriptors or timers grew at all, or the resident memory by more
than 256 KiB (a page cache's worth of noise). Then the bus is restarted: the daemon must
exit with status 1, as it does when it loses its bus (what the unit's Restart=on-failure turns into
a restart), and a new daemon on the new bus must serve a client again.

Prints a table, and writes it into BENCHMARKS.md between its soak markers. Exit status:
0 when nothing grew and every call behaved, 1 otherwise.
"""
import argparse
import datetime
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import dbus
import dbus.mainloop.glib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "compare"))
import compare  # noqa: E402  (the testbed, the bus and the daemon of the comparison, shared)
from compare import (BUFFER_DEVICE, CHILDREN, OD_NAME, OD_PATH, PROPS, BenchError, Bus, Children,  # noqa: E402
                     Orientationd, Testbed)


def log(message):
    print(f"soak: {message}", file=sys.stderr, flush=True)

CLIENT = OD_NAME + ".Client"
ORIENTATIONS = ["normal", "left-up", "bottom-up", "right-up"]
TRACE = os.path.join(ROOT, "examples", "traces", "quarter-turn.csv")
SCALE = 0.00980665
MARK_BEGIN, MARK_END = "<!-- soak.py: begin -->", "<!-- soak.py: end -->"
RSS_SLACK_KIB = 256


def buffer_device(number):
    """The comparison's IIO buffer accelerometer as device number `number`: each plug-in
    is a new device, as the kernel numbers them (a removed node's name is not reused)."""
    text = BUFFER_DEVICE.replace("accel1", f"accel{number}").replace("iio:device1", f"iio:device{number}")
    return text, f"/sys/devices/platform/accel{number}/iio:device{number}", f"/dev/iio:device{number}"


def recording():
    """The trace as buffer frames: [t_ms, x, y, z] in raw units of the device's scale."""
    frames = []
    with open(TRACE) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            t, x, y, z = line.strip().split(",")
            frames.append([int(t), *(max(-32768, min(32767, round(float(v) / SCALE))) for v in (x, y, z))])
    return frames


def figures(pid):
    """(VmRSS KiB, open descriptors, timerfds) of a process."""
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    fds = timers = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        fds += 1
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:[timerfd]":
                timers += 1
        except OSError:
            pass
    return rss, fds, timers


class Failures:
    """Calls that did not behave as the contract says: counted, the first few kept."""

    def __init__(self):
        self.count = 0
        self.examples = []

    def add(self, text):
        self.count += 1
        if len(self.examples) < 10:
            self.examples.append(text)
            log(f"unexpected: {text}")


class Peer:
    """One soak connection and the client objects it owns (path -> started)."""

    def __init__(self, address):
        self.connection = dbus.bus.BusConnection(address)
        self.manager = self.connection.get_object(OD_NAME, OD_PATH, introspect=False)
        self.clients = {}

    def client(self, path):
        return self.connection.get_object(OD_NAME, path, introspect=False)

    def drop(self):
        self.connection.close()


class Soak:
    def __init__(self, args, bus, testbed, daemon, rng):
        self.args, self.bus, self.testbed, self.daemon, self.rng = args, bus, testbed, daemon, rng
        self.failures = Failures()
        self.peers = []
        self.calls = 0
        self.counts = {}
        self.locked = False
        self.plugged = True
        self.device_number = 1
        self.frames = recording()
        self.replayed_until = 0.0

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def call(self, what, function):
        """A call that must succeed; its result, or None when it failed (counted)."""
        self.calls += 1
        self.count(what)
        try:
            return function()
        except dbus.DBusException as e:
            self.failures.add(f"{what}: {e.get_dbus_name()}: {e.get_dbus_message()}")
            return None

    def replay(self):
        """Keeps the recording playing into the buffer, over and over."""
        if not self.plugged or time.monotonic() < self.replayed_until:
            return
        self.testbed.command(op="play", node=buffer_device(self.device_number)[2], frames=self.frames)
        self.replayed_until = time.monotonic() + self.frames[-1][0] / 1000 + 0.1

    def step(self):
        """One random action."""
        roll = self.rng.random()
        if roll < 0.03 or not self.peers:
            if len(self.peers) < 8:
                self.peers.append(Peer(self.bus.address))
                self.count("connect")
            return
        peer = self.rng.choice(self.peers)
        if roll < 0.06:
            # Dropped with its clients open: the daemon closes them when it sees it go.
            self.peers.remove(peer)
            peer.drop()
            self.count("drop connection")
        elif roll < 0.30 and len(peer.clients) < 16:
            supported = self.rng.sample(ORIENTATIONS, self.rng.randint(1, 4))
            options = dbus.Dictionary({"SupportedOrientations": dbus.Array(supported, signature="s")}, signature="sv")
            path = self.call("CreateClient", lambda: peer.manager.CreateClient(options, dbus_interface=OD_NAME, timeout=10))
            if path is not None:
                if not str(path).startswith(OD_PATH + "/Client/"):
                    self.failures.add(f"CreateClient answered {path}")
                peer.clients[str(path)] = False
        elif roll < 0.55 and peer.clients:
            path = self.rng.choice(list(peer.clients))
            self.call("Start", lambda: peer.client(path).Start(dbus_interface=CLIENT, timeout=10))
            peer.clients[path] = True
        elif roll < 0.75 and peer.clients:
            path = self.rng.choice(list(peer.clients))
            self.call("Stop", lambda: peer.client(path).Stop(dbus_interface=CLIENT, timeout=10))
            peer.clients[path] = False
        elif roll < 0.90 and peer.clients:
            path = self.rng.choice(list(peer.clients))
            self.call("Close", lambda: peer.client(path).Close(dbus_interface=CLIENT, timeout=10))
            del peer.clients[path]
        elif roll < 0.97:
            self.locked = not self.locked
            self.call("Set RotationLocked", lambda: peer.manager.Set(OD_NAME, "RotationLocked", dbus.Boolean(self.locked, variant_level=1),
                                                                     dbus_interface=PROPS, timeout=10))
            value = self.call("Get RotationLocked", lambda: peer.manager.Get(OD_NAME, "RotationLocked",
                                                                             dbus_interface=PROPS, timeout=10))
            if value is not None and bool(value) != self.locked:
                self.failures.add(f"RotationLocked is {bool(value)} after setting {self.locked}")
        else:
            self.hotplug()

    def hotplug(self):
        if self.plugged:
            self.testbed.command(op="remove", dev=buffer_device(self.device_number)[1])
            self.count("unplug")
        else:
            self.device_number += 1
            self.testbed.command(op="add", text=buffer_device(self.device_number)[0])
            self.replayed_until = 0.0
            self.count("plug in")
        self.plugged = not self.plugged

    def quiet(self):
        """Every soak connection closed, the accelerometer plugged in, the lock off, and
        the daemon seen to have nothing started (ActiveClients 0)."""
        for peer in self.peers:
            peer.drop()
        self.peers = []
        if not self.plugged:
            self.hotplug()
        probe = Peer(self.bus.address)
        if self.locked:
            self.locked = False
            self.call("Set RotationLocked", lambda: probe.manager.Set(OD_NAME, "RotationLocked", dbus.Boolean(False, variant_level=1),
                                                                      dbus_interface=PROPS, timeout=10))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if int(probe.manager.Get(OD_NAME, "ActiveClients", dbus_interface=PROPS, timeout=10)) == 0:
                break
            time.sleep(0.05)
        else:
            self.failures.add("ActiveClients did not return to 0 after every connection was closed")
        # A round trip after the last NameOwnerChanged the daemon saw: its clean-up is done.
        probe.manager.Get(OD_NAME, "HasSensor", dbus_interface=PROPS, timeout=10)
        probe.drop()
        time.sleep(0.5)  # the daemon falls quiet (its code-page release runs when idle)

    def run(self, seconds, until_quiet=True):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.replay()
            self.step()
            time.sleep(self.rng.uniform(0.005, 0.03))
        if until_quiet:
            self.quiet()


def restart_bus(args, directory, old_bus, testbed, daemon):
    """Kills the bus: the daemon must say so and exit 1; a new bus and daemon serve again."""
    Children.stop(old_bus.proc)
    try:
        status = daemon.proc.wait(10)
    except subprocess.TimeoutExpired:
        return f"the daemon did not exit within 10 s of losing its bus", None
    if status != 1:
        return f"the daemon exited with status {status} after losing its bus (expected 1)", None
    bus = Bus(os.path.join(directory, "restarted"), "session")
    fresh = Orientationd(bus, testbed, os.path.join(args.bin_dir, "orientationd"))
    fresh.spawn()
    peer = Peer(bus.address)
    path = peer.manager.CreateClient(dbus.Dictionary({}, signature="sv"), dbus_interface=OD_NAME, timeout=10)
    peer.client(path).Start(dbus_interface=CLIENT, timeout=10)
    peer.drop()
    return None, fresh


def write_markdown(path, text):
    with open(path) as f:
        content = f.read()
    block = f"{MARK_BEGIN}\n{text}{MARK_END}"
    if MARK_BEGIN in content and MARK_END in content:
        start = content.index(MARK_BEGIN)
        end = content.index(MARK_END) + len(MARK_END)
        content = content[:start] + block + content[end:]
    else:
        content = content.rstrip("\n") + "\n\n## Soak (`make soak`)\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(content)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600, help="length of the churn (default 600)")
    parser.add_argument("--warmup", type=float, default=60, help="churn before the first measurement (default 60)")
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", default=os.path.join(ROOT, "BENCHMARKS.md"))
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md alone")
    args = parser.parse_args()
    if args.warmup >= args.seconds:
        parser.error("--warmup must be shorter than --seconds")
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory(prefix="orientationd-soak.") as directory:
        bus = Bus(directory, "session")
        testbed = Testbed([BUFFER_DEVICE])
        daemon = Orientationd(bus, testbed, os.path.join(args.bin_dir, "orientationd"))
        daemon.spawn()
        soak = Soak(args, bus, testbed, daemon, rng)
        log(f"warm-up, {args.warmup:.0f} s")
        soak.run(args.warmup)
        start = figures(daemon.proc.pid)
        log(f"churn, {args.seconds - args.warmup:.0f} s (RSS {start[0]} KiB, {start[1]} fds, {start[2]} timers)")
        soak.run(args.seconds - args.warmup)
        end = figures(daemon.proc.pid)
        problem, fresh = restart_bus(args, directory, bus, testbed, daemon)
        if fresh is not None:
            fresh.stop()
        testbed.close()

    grew = []
    if end[0] > start[0] + RSS_SLACK_KIB:
        grew.append(f"resident memory {start[0]} -> {end[0]} KiB")
    if end[1] > start[1]:
        grew.append(f"descriptors {start[1]} -> {end[1]}")
    if end[2] > start[2]:
        grew.append(f"timers {start[2]} -> {end[2]}")
    verdict = "passed" if not grew and not soak.failures.count and problem is None else "FAILED"
    actions = ", ".join(f"{name} {n}" for name, n in sorted(soak.counts.items()))
    text = (f"Run {datetime.date.today().isoformat()}, {args.seconds:.0f} s ({args.warmup:.0f} s warm-up), seed {args.seed}: "
            f"**{verdict}**.\n\n"
            "| | after warm-up | at the end |\n|---|---|---|\n"
            f"| resident memory (VmRSS) | {start[0]} KiB | {end[0]} KiB |\n"
            f"| open descriptors | {start[1]} | {end[1]} |\n"
            f"| timers (timerfd) | {start[2]} | {end[2]} |\n\n"
            f"Calls checked: {soak.calls}; failed other than as the contract says: {soak.failures.count}. "
            f"Actions: {actions}. Bus restart: "
            f"{problem or 'the daemon exited with status 1 (bus lost, as documented); a new one served a client'}.\n")
    print(text)
    for example in soak.failures.examples:
        print(f"  unexpected: {example}")
    for item in grew:
        print(f"  grew: {item}")
    if not args.no_write:
        write_markdown(args.output, text)
        log(f"figures written to {args.output}")
    return 0 if verdict == "passed" else 1


def on_signal(number, frame):
    raise SystemExit(128 + number)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        sys.exit(main())
    except BenchError as e:
        log(str(e))
        sys.exit(1)
    finally:
        CHILDREN.stop_all()
