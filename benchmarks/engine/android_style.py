#!/usr/bin/env python3
"""A reference engine in the style of Android's window orientation listener, for
comparison on the orientation traces (the issue measured orientationd against one).

    android_style.py TRACE.csv      prints t_ms,orientation,tilt at each change

Written from the published description of that listener's accelerometer judge, not
from its code: a 200 ms low-pass of the samples; no proposal while the filtered
magnitude is near zero or the screen is more than 80 degrees from vertical; a proposal
for the nearest rotation only while the tilt is within that rotation's tolerance
(portrait up to 70 degrees, landscape 65, upside down 60, all down to -25) and, for a
rotation next to the current one, while the roll is at least 22.5 degrees past the 45
degree boundary; a proposal is taken once it has stood 40 ms, 500 ms after the device
was last flat (80 degrees or more for a second), 300 ms after it last swung (tilt up by
20 degrees within 300 ms) and 500 ms after the filtered magnitude was last more than
4 m/s^2 from 9.81. It expects a correctly scaled sensor (m/s^2), as that listener does.
The tilt column is the plain 20/70 degree label of the filtered vector, so the scorer
can read it; it is not part of the reference. Python 3 standard library only.
"""
import math
import sys

FILTER_MS = 200.0
MAX_FILTER_GAP_MS = 1000.0
NEAR_ZERO = 1.0
G = 9.80665
ACCELERATION_TOLERANCE = 4.0
MAX_TILT = 80.0
FLAT_ANGLE, FLAT_MS = 80.0, 1000.0
SWING_DELTA, SWING_MS = 20.0, 300.0
SETTLE_MS, SINCE_FLAT_MS, SINCE_SWING_MS, SINCE_ACCELERATION_MS = 40.0, 500.0, 300.0, 500.0
GAP_DEG = 45.0
# Tilt tolerance per rotation (0 portrait, 1 its top to the left, 2 upside down, 3 to the
# right), and the names of the trace contract (rotation 1 has the left edge up).
TOLERANCE = [(-25.0, 70.0), (-25.0, 65.0), (-25.0, 60.0), (-25.0, 65.0)]
NAMES = ["normal", "left-up", "bottom-up", "right-up"]


def tilt_label(theta):
    if theta >= 70:
        return "face-up"
    if theta > 20:
        return "tilted-up"
    if theta >= -20:
        return "vertical"
    if theta > -70:
        return "tilted-down"
    return "face-down"


def angle_acceptable(rotation, angle, current):
    """The roll `angle` (0-360, rotation r centred at 90 r) is far enough into an
    adjacent rotation's sector: 22.5 degrees past the boundary on the current side."""
    if current < 0:
        return True
    half = GAP_DEG / 2
    if rotation == (current + 1) % 4:
        low = (rotation * 90 - 45 + half) % 360
        if rotation == 0:
            return not (angle < low and angle >= 180)
        return angle >= low
    if rotation == (current + 3) % 4:
        high = rotation * 90 + 45 - half
        if rotation == 0:
            return not (angle > high and angle < 180)
        return angle <= high
    return True


def run(path, out):
    fx = fy = fz = 0.0
    last_t = None
    history = []  # (t, tilt), the last second
    current, predicted, predicted_t = -1, -1, 0.0
    flat_t = swing_t = acceleration_t = -1e18
    reported = None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        t, x, y, z = line.split(",")
        t = float(t)
        # The trace's frame reads (0, -g, 0) upright; this listener's reads (0, +g, 0).
        ax, ay, az = -float(x), -float(y), float(z)
        if last_t is None or not 0 < t - last_t <= MAX_FILTER_GAP_MS:
            fx, fy, fz = ax, ay, az
            history = []
            predicted = -1
        else:
            a = (t - last_t) / (FILTER_MS + t - last_t)
            fx += a * (ax - fx)
            fy += a * (ay - fy)
            fz += a * (az - fz)
        last_t = t
        m = math.sqrt(fx * fx + fy * fy + fz * fz)
        tilt = None
        if m < NEAR_ZERO:
            predicted = -1
        else:
            if abs(m - G) > ACCELERATION_TOLERANCE:
                acceleration_t = t
            tilt = math.degrees(math.asin(max(-1.0, min(1.0, fz / m))))
            history.append((t, tilt))
            while history and history[0][0] < t - FLAT_MS - 100:
                history.pop(0)
            # Flat: 80 degrees or more for a second; swinging: up 20 within 300 ms.
            flat = False
            for ht, hv in reversed(history):
                if hv < FLAT_ANGLE:
                    break
                if ht + FLAT_MS <= t:
                    flat = True
                    break
            if flat:
                flat_t = t
            if any(ht + SWING_MS >= t and hv + SWING_DELTA <= tilt for ht, hv in history):
                swing_t = t
            if abs(tilt) > MAX_TILT:
                predicted = -1
            else:
                angle = math.degrees(math.atan2(-fx, fy)) % 360
                rotation = int((angle + 45) // 90) % 4
                lo, hi = TOLERANCE[rotation]
                if lo <= tilt <= hi and angle_acceptable(rotation, angle, current):
                    if rotation != predicted:
                        predicted, predicted_t = rotation, t
                else:
                    predicted = -1
        if (predicted >= 0 and t >= predicted_t + SETTLE_MS and t >= flat_t + SINCE_FLAT_MS
                and t >= swing_t + SINCE_SWING_MS and t >= acceleration_t + SINCE_ACCELERATION_MS):
            current = predicted
        state = (NAMES[current] if current >= 0 else "undefined",
                 tilt_label(tilt) if tilt is not None else "undefined")
        if state != reported:
            reported = state
            out.write("%d,%s,%s\n" % (int(t), state[0], state[1]))


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit("usage: android_style.py TRACE.csv (--help: what it does)")
    try:
        run(sys.argv[1], sys.stdout)
    except OSError as e:
        sys.exit("android_style.py: %s: %s" % (sys.argv[1], e.strerror))
