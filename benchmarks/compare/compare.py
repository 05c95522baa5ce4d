#!/usr/bin/python3
"""orientationd against Debian's iio-sensor-proxy, side by side, in one run (`make bench`).

    benchmarks/compare/compare.py [--bin-dir DIR] [--output BENCHMARKS.md] [--quick]

Both daemons run under the same umockdev devices (an IIO poll accelerometer and an
IIO buffer accelerometer, described as the integration tests describe them, plus
IIO_SENSOR_PROXY_TYPE, the trigger and current_trigger iio-sensor-proxy needs), each on
its own private dbus-daemon, one after the other, never at the same time. Figures
come from /proc (smaps_rollup, task/*/status, task/*/schedstat) and from a D-Bus
client in this process (Debian's python3 with dbus and gi). Prints one table with the
ratio orientationd / iio-sensor-proxy per row and writes it, with date, machine and
versions, to BENCHMARKS.md (the part between the markers; the rest of the file is
kept). Every loop is bounded in count and time; every process started here is stopped
on exit, failure or interruption.

The testbeds are owned by small helper processes (python3 with gi.repository.UMockdev
under libumockdev-preload, as in Tests/IntegrationTests/Support/UmockdevTestbed.swift);
the daemons get LD_PRELOAD and UMOCKDEV_DIR. Polled readings are changed by rewriting
the attribute files in place (same inode, as real sysfs content changes); buffer
frames are written by the helper into the device node's pseudo-terminal at a steady
rate, as a real buffer delivers them.
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "daemon"))
import measure  # noqa: E402  (run_until, voluntary_switches, sizes: shared with the daemon benchmark)

PYTHON = "/usr/bin/python3"
PRELOAD = "libumockdev-preload.so.0"
ISP = "/usr/sbin/iio-sensor-proxy"
OD_NAME, OD_PATH = "org.orientationd.Orientation1", "/org/orientationd/Orientation1"
ISP_NAME, ISP_PATH = "net.hadess.SensorProxy", "/net/hadess/SensorProxy"
PROPS = "org.freedesktop.DBus.Properties"
MARK_BEGIN, MARK_END = "<!-- compare.py: begin -->", "<!-- compare.py: end -->"

POLL_SYSPATH = "/sys/devices/platform/accel0/iio:device0"
BUFFER_SYSPATH = "/sys/devices/platform/accel1/iio:device1"
BUFFER_NODE = "/dev/iio:device1"
RAW = {"normal": (0, -1000, 0), "left-up": (1000, 0, 0), "bottom-up": (0, 1000, 0), "right-up": (-1000, 0, 0)}
TURN = ["left-up", "bottom-up", "right-up", "normal"]

# umockdev-record descriptions, as FakeDevice.iioPoll / FakeDevice.iioBuffer write them,
# with iio-sensor-proxy's udev property (its own rules are not run under umockdev).
POLL_DEVICE = """P: /devices/platform/accel0/iio:device0
E: SUBSYSTEM=iio
E: ORIENTATIOND_TYPE=iio-poll-accel
E: IIO_SENSOR_PROXY_TYPE=iio-poll-accel
A: name=accel_3d
A: in_accel_x_raw=0
A: in_accel_y_raw=-1000
A: in_accel_z_raw=0
A: in_accel_scale=0.00980665
"""
# The same accelerometer with a gyroscope on its device (a combined IMU), for
# orientationd's started CPU with and without fusing it.
IMU_DEVICE = POLL_DEVICE + "A: in_anglvel_x_raw=3\nA: in_anglvel_y_raw=-2\nA: in_anglvel_z_raw=1\nA: in_anglvel_scale=0.001\n"
BUFFER_DEVICE = "".join([
    "P: /devices/platform/accel1/iio:device1\nN: iio:device1\n",
    "E: SUBSYSTEM=iio\nE: DEVNAME=/dev/iio:device1\n",
    "E: ORIENTATIOND_TYPE=iio-buffer-accel\nE: IIO_SENSOR_PROXY_TYPE=iio-buffer-accel\n",
    "A: name=accel_3d\nA: in_accel_scale=0.00980665\nA: buffer/enable=0\nA: buffer/length=2\n",
    "A: trigger/current_trigger=\n",
    *[f"A: scan_elements/in_accel_{a}_en=0\nA: scan_elements/in_accel_{a}_index={i}\n"
      f"A: scan_elements/in_accel_{a}_type=le:s16/16>>0\n" for i, a in enumerate("xyz")],
    "A: scan_elements/in_timestamp_en=0\nA: scan_elements/in_timestamp_index=3\n",
    "A: scan_elements/in_timestamp_type=le:s64/64>>0\n",
])
# An ambient light sensor polled at its integration time (100 ms), for the facade
# (orientationd --sensor-proxy-compat) against iio-sensor-proxy, both claiming it with
# ClaimLight.
LIGHT_DEVICE = """P: /devices/platform/als/iio:device2
E: SUBSYSTEM=iio
E: IIO_SENSOR_PROXY_TYPE=iio-poll-als
A: name=als
A: in_illuminance_raw=100
A: in_illuminance_scale=1
A: in_illuminance_integration_time=0.1
"""
# iio-sensor-proxy's buffer driver looks for the trigger "<name>-dev<N>".
BUFFER_TRIGGER = "P: /devices/platform/accel1/trigger1\nE: SUBSYSTEM=iio\nA: name=accel_3d-dev1\n"

# The testbed helper: one JSON command per line on stdin, one JSON answer per line.
# "stream" writes a frame of the current pose into the buffer node every `ms`; "pose"
# changes the pose, writes one frame at once and answers with its CLOCK_MONOTONIC time.
# The one umockdev helper and the one private-bus launcher, shared with the tests.
HELPER = os.path.join(ROOT, "scripts", "umockdev-helper.py")
PRIVATE_BUS = os.path.join(ROOT, "scripts", "private-bus.sh")



class BenchError(Exception):
    pass


def log(message):
    print(f"compare: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- processes

class Children:
    """Every process started here; stop_all() ends them (TERM, then KILL), once each."""

    def __init__(self):
        self.procs = []

    def start(self, args, **kwargs):
        proc = subprocess.Popen(args, **kwargs)
        self.procs.append(proc)
        return proc

    @staticmethod
    def stop(proc, seconds=5.0):
        """SIGTERM, bounded wait, SIGKILL; returns the exit status."""
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
                return proc.wait(seconds)
            except subprocess.TimeoutExpired:
                proc.kill()
        try:
            return proc.wait(5)
        except subprocess.TimeoutExpired:
            return None

    def stop_all(self):
        for proc in reversed(self.procs):
            self.stop(proc, 3.0)
        self.procs.clear()


CHILDREN = Children()


class Testbed:
    """A umockdev testbed owned by a helper process."""

    def __init__(self, devices):
        env = dict(os.environ, LD_PRELOAD=PRELOAD)
        env.pop("UMOCKDEV_DIR", None)
        self.proc = CHILDREN.start([PYTHON, HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   env=env, bufsize=0)
        self.pending = b""
        self.root = self.answer()["root"]
        for text in devices:
            self.command(op="add", text=text)

    def answer(self, seconds=10.0):
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise BenchError("the umockdev helper did not answer")
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise BenchError("the umockdev helper exited")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        reply = json.loads(line)
        if not reply.get("ok"):
            raise BenchError(f"umockdev: {reply.get('error')}")
        return reply

    def command(self, **fields):
        self.proc.stdin.write((json.dumps(fields) + "\n").encode())
        return self.answer()

    @property
    def environment(self):
        return dict(os.environ, LD_PRELOAD=PRELOAD, UMOCKDEV_DIR=self.root)

    def rewrite_raw(self, raw):
        """Rewrites in_accel_{x,y,z}_raw in place (same inode); returns the monotonic ns
        just before the first write. The axis that becomes non-zero is written first, so
        a reading between the writes is at most 45° off, never zero."""
        order = sorted(range(3), key=lambda i: raw[i] == 0)
        start = time.monotonic_ns()
        for i in order:
            fd = os.open(f"{self.root}{POLL_SYSPATH}/in_accel_{'xyz'[i]}_raw", os.O_WRONLY | os.O_TRUNC)
            try:
                os.write(fd, f"{raw[i]}\n".encode())
            finally:
                os.close(fd)
        return start

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        CHILDREN.stop(self.proc)
        # A helper that was killed, or whose testbed was not finalized, leaves its root
        # behind (a soak's hundreds of plugs and unplugs left one in /tmp).
        shutil.rmtree(self.root, ignore_errors=True)


class Bus:
    def __init__(self, directory, kind):
        home = os.path.join(directory, f"{kind}-bus")
        os.makedirs(home, exist_ok=True)
        self.path = os.path.join(home, "bus")
        self.proc = CHILDREN.start(["bash", PRIVATE_BUS, home, kind],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if not select.select([self.proc.stdout], [], [], 10)[0]:
            raise BenchError("dbus-daemon did not start within 10 s")
        self.address = self.proc.stdout.readline().decode().strip()
        if not self.address:
            raise BenchError("dbus-daemon printed no address")
        self.connection = dbus.bus.BusConnection(self.address)


# ---------------------------------------------------------------------------- /proc

def tasks(pid):
    try:
        return os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return []


def cpu_ns(pid):
    """CPU time of all threads in ns (task/*/schedstat: first field)."""
    total = 0
    for tid in tasks(pid):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def rollup(pid):
    """(Rss, Pss) in KiB from /proc/PID/smaps_rollup."""
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] in ("Rss:", "Pss:"):
                values[parts[0]] = int(parts[1])
    return values["Rss:"], values["Pss:"]


# ---------------------------------------------------------------------------- daemons

class Daemon:
    """One daemon on one bus; the subclass knows its names and calls."""

    label = ""
    name = ""
    path = ""
    poll_interval_ms = 0

    def __init__(self, bus, testbed):
        self.bus = bus
        self.testbed = testbed
        self.proc = None
        self.connection = bus.connection
        self.loop = GLib.MainLoop()
        self.owner = ""
        self.events = []  # (monotonic ns, orientation) of orientation signals
        self.connection.add_signal_receiver(self.on_owner_changed, signal_name="NameOwnerChanged",
                                            dbus_interface="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                                            arg0=self.name)
        self.connection.get_name_owner("org.freedesktop.DBus")  # the match is in place

    def on_owner_changed(self, name, old, new):
        self.owner = str(new)
        self.loop.quit()

    def run_until(self, predicate, seconds):
        return measure.run_until(self.loop, predicate, seconds)

    def wake(self, *args):
        self.loop.quit()

    def spawn(self):
        """Starts the daemon; returns ms from the spawn to the first answered Get."""
        self.owner = ""
        start = time.monotonic_ns()
        self.proc = CHILDREN.start(self.command(), env=self.environment(), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=self.stderr)
        if not self.run_until(lambda: self.owner != "" or self.proc.poll() is not None, 10):
            raise BenchError(f"{self.label} did not take its name within 10 s")
        if self.proc.poll() is not None:
            raise BenchError(f"{self.label} exited with status {self.proc.returncode} at start")
        deadline = time.monotonic() + 5
        while True:
            try:
                self.get_property(self.probe_property)
                break
            except dbus.DBusException as e:
                if time.monotonic() > deadline:
                    raise BenchError(f"{self.label}: Get {self.probe_property} failed: {e}")
                time.sleep(0.001)
        return (time.monotonic_ns() - start) / 1e6

    def stop(self):
        if self.proc is None:
            return
        status = Children.stop(self.proc)
        self.run_until(lambda: self.owner == "", 5)
        self.proc = None
        if status not in (0, -signal.SIGTERM):
            log(f"{self.label} exited with status {status} on SIGTERM")

    def get_property(self, prop):
        obj = self.connection.get_object(self.name, self.path, introspect=False)
        return obj.Get(self.interface, prop, dbus_interface=PROPS, timeout=5)

    def on_orientation(self, value):
        self.events.append((time.monotonic_ns(), str(value)))
        self.loop.quit()

    def wait_orientation(self, value, since_index, seconds):
        """Monotonic ns of the first orientation signal with `value` after since_index."""
        def found():
            return next((t for t, v in self.events[since_index:] if v == value), None)
        self.run_until(lambda: found() is not None, seconds)
        return found()

    def call_async(self, obj, method, interface):
        done = []
        getattr(obj, method)(dbus_interface=interface, reply_handler=lambda *a: (done.append(None), self.wake()),
                             error_handler=lambda e: (done.append(e), self.wake()))
        return done


class Orientationd(Daemon):
    label = "orientationd"
    name, path, interface = OD_NAME, OD_PATH, OD_NAME
    probe_property = "HasSensor"
    poll_interval_ms = 100
    stderr = subprocess.DEVNULL

    def __init__(self, bus, testbed, binary, config=None, extra_args=()):
        self.binary = binary
        self.config = config
        self.extra_args = list(extra_args)
        super().__init__(bus, testbed)
        self.client = None

    def command(self):
        return ([self.binary, "--address", self.bus.address, "--sensor", "auto", "--no-polkit"]
                + (["--config", self.config] if self.config else []) + self.extra_args)

    def environment(self):
        return self.testbed.environment

    def claim(self):
        """Creates and starts a client; returns ms from Start sent to its first
        DeviceOrientation (signal), or to Start's reply when the reply comes later."""
        manager = self.connection.get_object(OD_NAME, OD_PATH, introspect=False)
        path = manager.CreateClient(dbus.Dictionary({}, signature="sv"), dbus_interface=OD_NAME, timeout=5)
        self.client = self.connection.get_object(OD_NAME, path, introspect=False)
        self.match = self.connection.add_signal_receiver(
            self.on_properties, signal_name="PropertiesChanged", dbus_interface=PROPS, path=str(path))
        index = len(self.events)
        start = time.monotonic_ns()
        done = self.call_async(self.client, "Start", OD_NAME + ".Client")
        self.run_until(lambda: done and len(self.events) > index, 5)
        if not done or done[0] is not None:
            raise BenchError(f"orientationd: Start failed: {done}")
        if len(self.events) == index:
            # The orientation was known before Start returned and no signal was needed:
            # take the reply.
            value = self.client.Get(OD_NAME + ".Client", "DeviceOrientation", dbus_interface=PROPS)
            self.events.append((time.monotonic_ns(), str(value)))
        return (self.events[index][0] - start) / 1e6

    def on_properties(self, interface, changed, invalidated):
        if "DeviceOrientation" in changed:
            self.on_orientation(changed["DeviceOrientation"])

    def release(self):
        if self.client is not None:
            self.client.Close(dbus_interface=OD_NAME + ".Client", timeout=5)
            self.match.remove()
            self.client = None


class SensorProxy(Daemon):
    label = "iio-sensor-proxy"
    name, path, interface = ISP_NAME, ISP_PATH, ISP_NAME
    probe_property = "HasAccelerometer"
    poll_interval_ms = 700  # g_timeout_add (700, …) in drv-iio-poll-accel.c
    stderr = subprocess.DEVNULL

    def __init__(self, bus, testbed):
        super().__init__(bus, testbed)
        self.claimed = False
        self.match = self.connection.add_signal_receiver(
            self.on_properties, signal_name="PropertiesChanged", dbus_interface=PROPS, path=ISP_PATH)

    def command(self):
        return [ISP]

    def environment(self):
        return dict(self.testbed.environment, DBUS_SYSTEM_BUS_ADDRESS=self.bus.address)

    def on_properties(self, interface, changed, invalidated):
        if "AccelerometerOrientation" in changed and str(changed["AccelerometerOrientation"]) != "undefined":
            self.on_orientation(changed["AccelerometerOrientation"])

    def claim(self):
        obj = self.connection.get_object(ISP_NAME, ISP_PATH, introspect=False)
        index = len(self.events)
        start = time.monotonic_ns()
        done = self.call_async(obj, "ClaimAccelerometer", ISP_NAME)
        self.run_until(lambda: done and len(self.events) > index, 5)
        if not done or done[0] is not None:
            raise BenchError(f"iio-sensor-proxy: ClaimAccelerometer failed: {done}")
        if len(self.events) == index:
            raise BenchError("iio-sensor-proxy: no orientation within 5 s of ClaimAccelerometer")
        self.claimed = True
        return (self.events[index][0] - start) / 1e6

    def release(self):
        if self.claimed:
            obj = self.connection.get_object(ISP_NAME, ISP_PATH, introspect=False)
            obj.ReleaseAccelerometer(dbus_interface=ISP_NAME, timeout=5)
            self.claimed = False


# ---------------------------------------------------------------------------- measurements

def run_light_phase(daemon, args):
    """The ambient light claimed through net.hadess.SensorProxy (ClaimLight): claim → the
    sensor's level announced, then wake-ups, CPU and memory while it is claimed (both read the sensor
    at its integration time). The daemon is spawned and stopped here."""
    log(f"{daemon.label}: ambient light claimed, {args.seconds:g} s")
    daemon.spawn()
    if not daemon.run_until(lambda: daemon.connection.name_has_owner(ISP_NAME), 5):
        raise BenchError(f"{daemon.label}: {ISP_NAME} not owned")
    levels = []

    def changed(interface, values, invalidated):
        # The sensor's level (100 lux), not a stale 0 sent before the first reading.
        if float(values.get("LightLevel", 0)) == 100:
            levels.append(time.monotonic_ns())
            daemon.wake()
    match = daemon.connection.add_signal_receiver(changed, signal_name="PropertiesChanged", dbus_interface=PROPS,
                                                  path=ISP_PATH)
    obj = daemon.connection.get_object(ISP_NAME, ISP_PATH, introspect=False)
    start = time.monotonic_ns()
    done = daemon.call_async(obj, "ClaimLight", ISP_NAME)
    daemon.run_until(lambda: done and levels, 5)
    if not done or done[0] is not None or not levels:
        raise BenchError(f"{daemon.label}: ClaimLight gave no light level within 5 s: {done}")
    r = {"light_claim_ms": (levels[0] - start) / 1e6}
    daemon.run_until(lambda: False, 1.0)
    switches, cpu = window(daemon, args.seconds)
    r["light_switches_per_s"] = switches / args.seconds
    r["light_cpu_ms_per_s"] = cpu / 1e6 / args.seconds
    r["light_rss"], _ = rollup(daemon.proc.pid)
    obj.ReleaseLight(dbus_interface=ISP_NAME, timeout=5)
    match.remove()
    daemon.stop()
    return r


def measure_starts(daemon, starts):
    """Fresh daemon each time: start -> Get answered, claim -> first orientation."""
    start_ms, claim_ms = [], []
    for _ in range(starts):
        start_ms.append(daemon.spawn())
        claim_ms.append(daemon.claim())
        daemon.release()
        daemon.stop()
    return start_ms, claim_ms


def window(daemon, seconds):
    """(voluntary switches, CPU ns) over `seconds` of the loop (signals dispatched)."""
    pid = daemon.proc.pid
    switches, cpu = measure.voluntary_switches(pid), cpu_ns(pid)
    daemon.run_until(lambda: False, seconds)
    return measure.voluntary_switches(pid) - switches, cpu_ns(pid) - cpu


def measure_resident(daemon, seconds, floor=None):
    """Idle (no client) then started (one client), on one daemon.

    `floor`: a command (argv, env) for the bare wake-up the poll tick is compared with. It
    runs through the daemon's idle window, the one right before the started window: each
    alone (the idle daemon never wakes), and a minute apart at most. Measured minutes
    apart, the two drift (a wake-up on this kind of VM costs 42 µs in one run and 70 in
    another); measured at the same time, each makes the other's wake-ups cheaper (the
    virtual CPU is woken twice as often: 45-48 µs alongside against 56-69 alone)."""
    r = {}
    daemon.spawn()
    daemon.run_until(lambda: False, 1.0)
    r["rss_idle"], r["pss_idle"] = rollup(daemon.proc.pid)
    bare = None
    if floor is not None:
        argv, env = floor
        bare = CHILDREN.start(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env)
    try:
        if bare:
            daemon.run_until(lambda: False, 0.5)  # past its start-up, as the daemons' windows are
        bare_before = cpu_ns(bare.pid) if bare else 0
        r["idle_switches"], r["idle_cpu_ns"] = window(daemon, seconds)
        if bare:
            r["bare_timer_us_per_tick"] = (cpu_ns(bare.pid) - bare_before) / 1e3 / (seconds * 1000 / 100)
    finally:
        if bare:
            CHILDREN.stop(bare)
    daemon.claim()
    daemon.run_until(lambda: False, 1.0)
    switches, cpu = window(daemon, seconds)
    r["started_switches_per_s"] = switches / seconds
    r["started_cpu_ms_per_s"] = cpu / 1e6 / seconds
    ticks = seconds * 1000 / daemon.poll_interval_ms
    r["cpu_us_per_tick"] = cpu / 1e3 / ticks
    r["rss_started"], r["pss_started"] = rollup(daemon.proc.pid)
    return r


def measure_poll_latency(daemon, testbed, changes, rng):
    """sysfs change (in place) -> orientation signal at the client, random phase."""
    latencies = []
    current = "normal"
    for i in range(changes):
        target = TURN[i % len(TURN)]
        index = len(daemon.events)
        daemon.run_until(lambda: False, rng.uniform(0.25, 1.0))  # random phase, signals dispatched
        index = len(daemon.events)
        t0 = testbed.rewrite_raw(RAW[target])
        t1 = daemon.wait_orientation(target, index, 5)
        if t1 is None:
            raise BenchError(f"{daemon.label}: no {target} within 5 s of the sysfs change ({current} before)")
        latencies.append((t1 - t0) / 1e6)
        current = target
    return latencies


def measure_buffer_latency(daemon, testbed, changes, rng, frame_ms):
    latencies = []
    for i in range(changes):
        target = TURN[i % len(TURN)]
        daemon.run_until(lambda: False, rng.uniform(0.25, 1.0))
        index = len(daemon.events)
        t0 = testbed.command(op="pose", raw=RAW[target])["t"]
        t1 = daemon.wait_orientation(target, index, 5)
        if t1 is None:
            raise BenchError(f"{daemon.label}: no {target} within 5 s of the buffer frame")
        latencies.append((t1 - t0) / 1e6)
    return latencies


def run_poll_phase(daemon, testbed, args, rng, floor=None):
    log(f"{daemon.label}: {args.starts} starts (start -> Get, claim -> first orientation)")
    r = {}
    r["start_ms"], r["claim_ms"] = measure_starts(daemon, args.starts)
    log(f"{daemon.label}: memory, {args.seconds:g} s idle, {args.seconds:g} s started"
        + (", a bare timerfd wake-up in the idle window" if floor else ""))
    try:
        r.update(measure_resident(daemon, args.seconds, floor))
        log(f"{daemon.label}: {args.changes} polled rotations")
        r["poll_latency_ms"] = measure_poll_latency(daemon, testbed, args.changes, rng)
        daemon.release()
    finally:
        testbed.rewrite_raw(RAW["normal"])
        daemon.stop()
    return r


def run_buffer_phase(daemon, testbed, args, rng):
    log(f"{daemon.label}: {args.changes} buffer rotations, frames every {args.frame_ms} ms")
    testbed.command(op="stream", node=BUFFER_NODE, raw=RAW["normal"], ms=args.frame_ms)
    try:
        daemon.spawn()
        daemon.claim()
        return {"buffer_latency_ms": measure_buffer_latency(daemon, testbed, args.changes, rng, args.frame_ms)}
    finally:
        daemon.stop()
        testbed.command(op="stream", node=BUFFER_NODE, raw=RAW["normal"], ms=0)


def bare_timer_command(bin_dir, testbed):
    """A bare 100 ms timerfd on the daemon's own loop (orientationd-bench timer), under the
    daemons' own environment (libumockdev-preload, which wraps read() and blocks and
    unblocks signals around it: two more system calls for every timerfd read the
    daemon's tick makes too): the like-for-like floor a poll tick is compared with. Its
    CPU is read from /proc like the daemons', in the daemon's started window."""
    return [os.path.join(bin_dir, "orientationd-bench"), "timer"], testbed.environment


def run_bare_timer_plain(bin_dir, seconds):
    """The same bare wake-up without umockdev's preload, as it would run on a real system
    (printed beside the floor, not used in the ratio)."""
    proc = CHILDREN.start([os.path.join(bin_dir, "orientationd-bench"), "timer"], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=None)
    try:
        time.sleep(0.5)  # past its start-up, as the daemons' windows are
        before = cpu_ns(proc.pid)
        time.sleep(seconds)
        used = cpu_ns(proc.pid) - before
    finally:
        CHILDREN.stop(proc)
    return {"bare_timer_plain_us_per_tick": used / 1e3 / (seconds * 1000 / 100)}


def run_fanout(bin_dir, seconds):
    out = run_tool([os.path.join(bin_dir, "orientationd-bench"), "fanout",
                    "--connections", "64", "--clients-per-connection", "64"], seconds)
    r = {"fanout_text": out}
    m = re.search(r"last of (\d+) will-change \+ PropertiesChanged: median ([\d.]+) ms, max ([\d.]+) ms", out)
    if m:
        r["fanout_median_ms"], r["fanout_max_ms"] = float(m.group(2)), float(m.group(3))
    m = re.search(r"started clients over (\d+) connections", out)
    m2 = re.search(r"fan-out: (\d+) started clients", out)
    if m and m2:
        r["fanout_shape"] = f"{m2.group(1)} clients / {m.group(1)} connections"
    m = re.search(r"([\d.]+) KB per client", out)
    if m:
        r["rss_per_client_kb"] = float(m.group(1))
    return r


def run_engine(seconds):
    out = run_tool(["sh", os.path.join(ROOT, "benchmarks", "engine", "bench.sh")], seconds)
    r = {"engine_text": out}
    # The figure is printed as "... N samples/s" (possibly with thousands separators or M).
    m = re.search(r"([\d.,]+)\s*(M?)\s*samples/s", out)
    if m:
        value = float(m.group(1).replace(",", ""))
        r["engine_msps"] = value if m.group(2) == "M" else value / 1e6
    return r


def run_tool(args, seconds):
    proc = CHILDREN.start(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise BenchError(f"{args[0]} did not finish within {seconds} s")
    text = out.decode(errors="replace")
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(args)} failed with status {proc.returncode}:\n{text}")
    return text


# ---------------------------------------------------------------------------- report

def med(values):
    return statistics.median(values)


def fmt(value, unit, digits=1):
    if value is None:
        return "—"
    return f"{value:.{digits}f} {unit}".strip()


def ratio(a, b):
    if a is None or b is None:
        return "—"
    if b == 0:
        return "—" if a else "= (both 0)"
    return f"{a / b:.2f}×"


def table(od, isp, extra):
    """Rows: (measure, orientationd, iio-sensor-proxy, ratio, target, verdict)."""
    rows = []

    def row(label, a, b, unit, digits=1, target="", ok=None):
        rows.append((label, fmt(a, unit, digits), fmt(b, unit, digits), ratio(a, b), target,
                     "" if ok is None else ("met" if ok else "MISSED")))

    sa, sb = med(od["start_ms"]), med(isp["start_ms"])
    row(f"start → first Get answered, median of {len(od['start_ms'])}", sa, sb, "ms", 1, "≤ iio-sensor-proxy", sa <= sb)
    row("idle RSS, no client", od["rss_idle"] / 1024, isp["rss_idle"] / 1024, "MiB", 2, "≤ iio-sensor-proxy",
        od["rss_idle"] <= isp["rss_idle"])
    row("idle PSS, no client", od["pss_idle"] / 1024, isp["pss_idle"] / 1024, "MiB", 2, "≤ 1.5× iio-sensor-proxy",
        od["pss_idle"] <= 1.5 * isp["pss_idle"])
    row("RSS, 1 started client / claim", od["rss_started"] / 1024, isp["rss_started"] / 1024, "MiB", 2)
    row("PSS, 1 started client / claim", od["pss_started"] / 1024, isp["pss_started"] / 1024, "MiB", 2)
    seconds = extra["seconds"]
    row(f"idle wakeups (voluntary switches), {seconds:g} s", od["idle_switches"], isp["idle_switches"], "", 0, "0",
        od["idle_switches"] == 0)
    row(f"idle CPU, {seconds:g} s", od["idle_cpu_ns"] / 1e6, isp["idle_cpu_ns"] / 1e6, "ms", 3)
    row("poll interval", od_interval := Orientationd.poll_interval_ms, SensorProxy.poll_interval_ms, "ms", 0,
        "≥ 7× as often", SensorProxy.poll_interval_ms / od_interval >= 7)
    row("started: wakeups/s", od["started_switches_per_s"], isp["started_switches_per_s"], "/s", 1)
    row("started: CPU per second", od["started_cpu_ms_per_s"], isp["started_cpu_ms_per_s"], "ms/s", 3,
        "≤ 1.0 ms/s", od["started_cpu_ms_per_s"] <= 1.0)
    row("started: CPU per poll tick", od["cpu_us_per_tick"], isp["cpu_us_per_tick"], "µs", 0)
    if "bare_timer_us_per_tick" in extra:
        bare = extra["bare_timer_us_per_tick"]
        row("bare 100 ms timerfd wake-up (same loop, nothing done), under umockdev, the window before", bare, None, "µs", 0)
        if "bare_timer_plain_us_per_tick" in extra:
            row("the same wake-up without umockdev's preload", extra["bare_timer_plain_us_per_tick"], None, "µs", 0)
        row("CPU per poll tick ÷ bare wake-up", od["cpu_us_per_tick"] / bare if bare else None, None, "×", 2, "≤ 1.5×",
            bool(bare) and od["cpu_us_per_tick"] / bare <= 1.5)
    if "gyro_cpu_ms_per_s" in extra:
        g, n = extra["gyro_cpu_ms_per_s"], extra["nogyro_cpu_ms_per_s"]
        row("started: CPU per second, a gyroscope on the device fused", g, None, "ms/s", 3)
        row("the same, Gyroscope = off", n, None, "ms/s", 3)
        row("CPU with the gyroscope ÷ without", g / n if n else None, None, "×", 2, "≤ 1.5×", bool(n) and g / n <= 1.5)
    ca, cb = med(od["claim_ms"]), med(isp["claim_ms"])
    row(f"Start/claim → first orientation, median of {len(od['claim_ms'])}", ca, cb, "ms", 2, "≤ 2 ms", ca <= 2)
    pa, pb = od["poll_latency_ms"], isp["poll_latency_ms"]
    row(f"polled: sysfs change → PropertiesChanged, median of {len(pa)}", med(pa), med(pb), "ms", 0, "≤ 130 ms",
        med(pa) <= 130)
    row("polled: sysfs change → PropertiesChanged, max", max(pa), max(pb), "ms", 0, "≤ 200 ms", max(pa) <= 200)
    ba, bb = od["buffer_latency_ms"], isp["buffer_latency_ms"]
    row(f"buffer: frame → PropertiesChanged, median of {len(ba)}", med(ba), med(bb), "ms", 0, "≤ 120 ms", med(ba) <= 120)
    row("buffer: frame → PropertiesChanged, max", max(ba), max(bb), "ms", 0, "≤ 150 ms", max(ba) <= 150)
    if "light_claim_ms" in od:
        row("facade: ClaimLight → the light level announced", od["light_claim_ms"], isp["light_claim_ms"], "ms", 1,
            "≤ 2 ms", od["light_claim_ms"] <= 2)
        row("facade: light claimed (100 ms integration time): wakeups/s", od["light_switches_per_s"],
            isp["light_switches_per_s"], "/s", 1)
        row("facade: light claimed: CPU per second", od["light_cpu_ms_per_s"], isp["light_cpu_ms_per_s"], "ms/s", 3,
            "≤ iio-sensor-proxy", od["light_cpu_ms_per_s"] <= isp["light_cpu_ms_per_s"])
        row("facade: light claimed: RSS", od["light_rss"] / 1024, isp["light_rss"] / 1024, "MiB", 2)
    if "fanout_median_ms" in extra:
        row(f"fan-out of one rotation ({extra.get('fanout_shape', '')}), median", extra["fanout_median_ms"], None,
            "ms", 1, "≤ 250 ms", extra["fanout_median_ms"] <= 250)
        row("fan-out, max", extra["fanout_max_ms"], None, "ms", 1, "≤ 250 ms", extra["fanout_max_ms"] <= 250)
    if "rss_per_client_kb" in extra:
        row("RSS per started client", extra["rss_per_client_kb"], None, "KiB", 2, "≤ 2 KB", extra["rss_per_client_kb"] <= 2)
    if "engine_msps" in extra:
        row("engine throughput (one core)", extra["engine_msps"], None, "M samples/s", 1, "≥ 5 M/s",
            extra["engine_msps"] >= 5)
    return rows


def render(rows):
    header = ("measure", "orientationd", "iio-sensor-proxy", "ratio", "target", "")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * 3 + ["---", "---"]) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    return "\n".join(lines)


def render_text(rows):
    header = ("measure", "orientationd", "iio-sensor-proxy", "ratio", "target", "")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(6)]
    out = []
    for r in [header] + rows:
        cells = [str(r[0]).ljust(widths[0])] + [str(r[i]).rjust(widths[i]) for i in (1, 2, 3)] + \
                [str(r[4]).ljust(widths[4]), str(r[5])]
        out.append("  ".join(cells).rstrip())
        if r is header:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def command_output(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def environment_lines(args):
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    swift = command_output([args.swift, "--version"]).splitlines()
    commit = command_output(["git", "-C", ROOT, "describe", "--always", "--dirty"])

    def deb(package):
        return command_output(["dpkg-query", "-W", "-f=${Version}", package]) or "not installed"

    return [
        f"- date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}",
        f"- machine: {os.cpu_count()} CPUs (nproc {command_output(['nproc'])}), {cpu}, "
        f"kernel {platform.release()}, {platform.machine()}",
        f"- orientationd: {commit}, release build with scripts/release-flags.sh ({os.path.relpath(args.bin_dir, ROOT)}); "
        f"{swift[0] if swift else 'swift: unknown'}",
        f"- iio-sensor-proxy {deb('iio-sensor-proxy')} (Debian), umockdev {deb('umockdev')}, "
        f"dbus {deb('dbus-daemon')}, python3-dbus {deb('python3-dbus')}",
    ]


def write_markdown(path, rows, env_lines, args, od, isp, extra):
    section = [MARK_BEGIN, "## Latest run (`make bench`)", ""] + env_lines + [
        f"- settings: {args.starts} starts, {args.seconds:g} s windows, {args.changes} rotations per latency row, "
        f"buffer frames every {args.frame_ms} ms, seed {args.seed}",
        "",
        "Ratio = orientationd / iio-sensor-proxy.",
        "",
        render(rows),
        "",
        "Raw latencies (ms), in the order measured:",
        "",
        f"- orientationd polled: {', '.join(f'{v:.0f}' for v in od['poll_latency_ms'])}",
        f"- iio-sensor-proxy polled: {', '.join(f'{v:.0f}' for v in isp['poll_latency_ms'])}",
        f"- orientationd buffer: {', '.join(f'{v:.0f}' for v in od['buffer_latency_ms'])}",
        f"- iio-sensor-proxy buffer: {', '.join(f'{v:.0f}' for v in isp['buffer_latency_ms'])}",
        f"- orientationd start → first Get: {', '.join(f'{v:.1f}' for v in od['start_ms'])}",
        f"- iio-sensor-proxy start → first Get: {', '.join(f'{v:.1f}' for v in isp['start_ms'])}",
        f"- orientationd Start → orientation: {', '.join(f'{v:.2f}' for v in od['claim_ms'])}",
        f"- iio-sensor-proxy claim → orientation: {', '.join(f'{v:.0f}' for v in isp['claim_ms'])}",
        "",
        MARK_END,
    ]
    text = "\n".join(section) + "\n"
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if MARK_BEGIN in old and MARK_END in old:
            before, rest = old.split(MARK_BEGIN, 1)
            after = rest.split(MARK_END, 1)[1].lstrip("\n")
            text = before + text + ("\n" + after if after else "")
        else:
            text = old.rstrip("\n") + "\n\n" + text
    else:
        text = "# Benchmarks\n\n" + text
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


# ---------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build", "release"),
                        help="where orientationd and orientationd-bench are (default: the release build)")
    parser.add_argument("--output", default=os.path.join(ROOT, "BENCHMARKS.md"),
                        help="the file whose 'Latest run' table is replaced (default BENCHMARKS.md)")
    parser.add_argument("--starts", type=int, default=10, help="daemon starts timed for the start rows (default 10)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="length of the idle and started windows for wakeups and CPU (default 10 s)")
    parser.add_argument("--changes", type=int, default=30, help="orientation changes timed for the latency rows (default 30)")
    parser.add_argument("--frame-ms", type=int, default=20, help="buffer frame period (default 20 ms: 50 Hz)")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000,
                        help="seed of the timing of the sysfs changes (default: from the clock)")
    parser.add_argument("--swift", default="swift", help="the swift driver that builds the engine bench (default swift)")
    parser.add_argument("--skip-extras", action="store_true", help="no fan-out and engine rows")
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md alone")
    args = parser.parse_args()
    if not (1 <= args.starts <= 100 and 1 <= args.seconds <= 120 and 1 <= args.changes <= 200
            and 5 <= args.frame_ms <= 1000):
        parser.error("out of range: --starts 1..100, --seconds 1..120, --changes 1..200, --frame-ms 5..1000")
    for path in (ISP, os.path.join(args.bin_dir, "orientationd")):
        if not os.access(path, os.X_OK):
            raise BenchError(f"{path} is missing (apt install iio-sensor-proxy; make release)")

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    rng = random.Random(args.seed)
    extra = {"seconds": args.seconds}
    with tempfile.TemporaryDirectory(prefix="orientationd-compare.") as directory:
        poll_bed = Testbed([POLL_DEVICE])
        buffer_bed = Testbed([BUFFER_DEVICE, BUFFER_TRIGGER])
        od_bus, isp_bus = Bus(directory, "session"), Bus(directory, "system")
        od = Orientationd(od_bus, poll_bed, os.path.join(args.bin_dir, "orientationd"))
        isp = SensorProxy(isp_bus, poll_bed)
        od_r = run_poll_phase(od, poll_bed, args, rng, floor=bare_timer_command(args.bin_dir, poll_bed))
        isp_r = run_poll_phase(isp, poll_bed, args, rng)
        od.testbed = isp.testbed = buffer_bed
        od_r.update(run_buffer_phase(od, buffer_bed, args, rng))
        isp_r.update(run_buffer_phase(isp, buffer_bed, args, rng))
        log(f"a bare 100 ms timerfd wake-up (orientationd-bench timer), {args.seconds:g} s, without umockdev")
        extra.update(run_bare_timer_plain(args.bin_dir, args.seconds))
        if od_r.get("bare_timer_us_per_tick") is not None:
            extra["bare_timer_us_per_tick"] = od_r["bare_timer_us_per_tick"]
        poll_bed.close()
        buffer_bed.close()
        light_bed = Testbed([LIGHT_DEVICE])
        light_home = os.path.join(directory, "light")
        os.makedirs(light_home, exist_ok=True)
        od_r.update(run_light_phase(Orientationd(Bus(light_home, "session"), light_bed, os.path.join(args.bin_dir, "orientationd"),
                                                 extra_args=["--sensor-proxy-compat"]), args))
        isp_r.update(run_light_phase(SensorProxy(Bus(light_home, "system"), light_bed), args))
        light_bed.close()
        # A gyroscope on the accelerometer's device, fused (its umockdev readings never
        # change: GyroStuckMs is raised so that it is not given up as stuck within the
        # window), against the same device with Gyroscope = off.
        imu_bed = Testbed([IMU_DEVICE])
        for label, config_text in (("gyro", "[Engine]\nGyroStuckMs=600000\n"), ("nogyro", "[Sensor]\nGyroscope=off\n")):
            config = os.path.join(directory, f"{label}.conf")
            with open(config, "w") as f:
                f.write(config_text)
            log(f"orientationd: started CPU, {args.seconds:g} s, {'with' if label == 'gyro' else 'without'} the gyroscope")
            bus_home = os.path.join(directory, label)
            os.makedirs(bus_home, exist_ok=True)
            daemon = Orientationd(Bus(bus_home, "session"), imu_bed, os.path.join(args.bin_dir, "orientationd"), config)
            daemon.spawn()
            daemon.run_until(lambda: False, 1.0)
            daemon.claim()
            daemon.run_until(lambda: False, 1.0)
            _, cpu = window(daemon, args.seconds)
            extra[f"{label}_cpu_ms_per_s"] = cpu / 1e6 / args.seconds
            daemon.stop()
        imu_bed.close()
        if not args.skip_extras:
            log("orientationd: fan-out (orientationd-bench fanout, 64 connections x 64 clients)")
            extra.update(run_fanout(args.bin_dir, 300))
            log("orientationd: engine throughput (benchmarks/engine/bench.sh)")
            extra.update(run_engine(600))
        CHILDREN.stop_all()

    rows = table(od_r, isp_r, extra)
    print()
    print(render_text(rows))
    if extra.get("fanout_text"):
        print("\norientationd-bench fanout:\n" + extra["fanout_text"].rstrip())
    if extra.get("engine_text"):
        print("\nbenchmarks/engine/bench.sh:\n" + extra["engine_text"].rstrip())
    if not args.no_write:
        write_markdown(args.output, rows, environment_lines(args), args, od_r, isp_r, extra)
        print(f"\ncompare: table written to {args.output}")


def on_signal(number, frame):
    raise SystemExit(128 + number)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        main()
    except BenchError as e:
        log(str(e))
        sys.exit(1)
    finally:
        CHILDREN.stop_all()
