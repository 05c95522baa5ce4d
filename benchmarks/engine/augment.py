#!/usr/bin/env python3
"""Make robustness variants of the orientation dev traces.

    augment.py --traces DIR --out OUTDIR [--seed N] [--variants a,b,...]

Each variant is a directory OUTDIR/<variant>/ holding every trace transformed and its
truth file copied unchanged (the truth is in time and labels only, so it stays valid).
Variants (all deterministic for a seed):

  jitter     timestamps moved by up to +-35 % of the sample interval (kept increasing)
  rate10     resampled to 10 Hz (box average over each new interval: a band-limited sensor)
  rate10raw  resampled to 10 Hz by picking the nearest sample (no anti-alias filter)
  rate200    resampled to 200 Hz by linear interpolation
  rate25j    resampled to 25 Hz with +-30 % jitter
  gaps       three dropouts of 0.6 s each at random places
  gain       per-axis gain errors up to +-5 %
  offset     per-axis offsets up to +-0.35 m/s^2
  quant      quantised to 0.153 m/s^2 (8 bits over +-2 g)
  noise      extra white noise, sigma 0.15 m/s^2
  rotz90     the trace rotated 90 degrees about z (labels rotated accordingly)
  rotz180    the trace rotated 180 degrees about z (labels rotated accordingly)
  roll15, roll-15
             the trace rotated by that many degrees about z, labels kept: the same
             motions by a hand that holds the phone at another angle (the mean roll of
             a swinging hand or of a phone at the ear differs between people). Holds
             end up to 15 degrees nearer a boundary than the truth saw them, so accuracy
             and latency are approximate; flicker on the recordings without turns
             (swinging, pocket, texting) is what the variant measures
             (rotz and roll turn a gyroscope recorded beside the trace with it: its
             rates are a vector in the same device frame)
  combo      jitter + gain + offset + quant + noise + gaps
  combo10    combo at 10 Hz
  dec10      decimated to 10 Hz: the first sample at or after each 100 ms tick, with its own
             time stamp (what a daemon polling a sensor at 10 Hz reads); a gyroscope
             recorded beside the trace (gyro/NAME.csv) is decimated the same way, at the
             accelerometer's ticks (the daemon reads both at one tick)
  dec25, dec20, dec50
             the same at 25, 20 and 50 Hz (a 20 Hz poll reads the gyroscope exactly
             as rarely as the engine still integrates it, GyroIntegrateMaxMs)
  dec10p25, dec10p50, dec10p75, dec25p10, dec25p20, dec25p30
             the same with the ticks P ms later (decNpP): the same motion read by a
             poll that started at another moment. Which readings a decimation keeps is
             luck relative to the motion (a calm reading in a shake, a rest's second
             reading), so a figure that holds only at one phase is fitted to it
  run        running bursts (inside each scored hold of 5 s or more, 1 s calm at its ends)
             with the device held in front: linear acceleration at a stride rate of
             2.6-3.0 Hz added in the world frame (vertical 0.45-0.6 g plus its harmonic,
             sideways sway 0.25-0.35 g at half the stride rate, fore-aft 0.2 g), turned
             into the device frame with the trace's own gravity direction; |a| reaches
             0.2-1.9 g and the apparent direction swings by up to ~45 degrees. The truth is
             unchanged: running does not change how the device is held.
  runswing   running as in `run`, harder and with the arm swinging: vertical 0.6-0.8 g plus
             a 0.25 g harmonic, sideways 0.25-0.35 g, fore-aft 0.4 g at half the stride
             rate (|a| up to about 2.4 g: the ~1.4 g of linear acceleration measured when
             running with a phone in the hand), and the device turned by the swing, +-20
             degrees in roll and +-25 degrees in pitch. Orientation truth unchanged (the
             roll stays within the truth's 51 degree hold); tilt is not scored (the pitch
             swing changes it)
  runswing2  the same with twice the linear acceleration
  runall     the forces of `runswing` (without its swing of the device) from the first
             sample to the last, turns included: the sensor started mid-stride and
             every turn made while running. Tilt is not scored. `run` and `runall` leave
             the device's attitude as it was: the gyroscope is copied unchanged
  vigour0.7, vigour1.3, vigour1.5, vigour1.5d10
             the person's motion made calmer or more vigorous: every reading's difference
             from a centred 500 ms average of the readings (gravity, and what a swing's
             pull leaves in the mean) multiplied by that factor: strides, a swing's
             oscillation, a hand's shake and the turns' own forces grow or shrink, held
             poses do not. The gyroscope is copied unchanged (the device turns as before);
             d10: then decimated to 10 Hz as dec10. A check that the rules against a run's
             or a swing's pull are not fitted to one person's vigour
  tempo0.75, tempo1.33
             the person slower or faster: the time axis divided by that factor (the
             recording's rate multiplied by it), the gyroscope's rates (its bias with
             them) multiplied by it and the truth's times divided by it. The truth's
             labels stay, though its one-second hold rule was applied to the original
             motion: in tempo1.33 a pose held 1-1.33 s is still a change after 0.75-1 s,
             in tempo0.75 an excursion of 0.75-1 s is still an excursion after 1-1.33 s
             (following it counts as flicker), so there flicker is an upper bound
  gbias, gbias10
             the gyroscope's bias made worse: a constant rate of up to +-6 degrees/s per
             axis added to every gyroscope reading (a Nexus 5's own is about 4; the
             MPU-6050's datasheet allows 20), the accelerometer unchanged; gbias10 then
             decimated to 10 Hz as dec10. Checks that an attitude whose bias is not yet
             learned (no rest so far) does not lead the rules astray
  gscale     each gyroscope axis's scale off by up to +-6 % (a gyroscope's sensitivity
             tolerance), the accelerometer unchanged
  glag, glead
             the gyroscope's time stamps 25 ms later (glag) or earlier (glead) than the
             accelerometer's: two devices whose clocks or filters disagree a little
  dec10glag  dec10 with the gyroscope read 50 ms after each accelerometer tick (two
             devices polled apart, or a gyroscope on its own trigger)
  rate10g    rate10 (box average) with the gyroscope box-averaged the same way: a
             decimation other than the daemon's
  ggaps, ggaps10
             the gyroscope silent four times for 0.6 s and once for 3 s at random places
             (the accelerometer unchanged; ggaps10 at 10 Hz as dec10): a gyroscope that
             stops and comes back
  scale0.01, scale0.1, scale10, scale1000
             every value multiplied by that factor (a driver or firmware table with the
             wrong scale); written with 6 significant digits
Python 3 standard library only.
"""
import json, math, os, random, re, shutil, sys

ALL = ["jitter", "rate10", "rate10raw", "rate200", "rate25j", "gaps", "gain", "offset", "quant", "noise",
       "rotz90", "rotz180", "combo", "combo10", "dec10", "dec25", "dec20", "dec50", "scale0.01", "scale0.1", "scale10", "scale1000", "run",
       "runswing", "runswing2", "runall", "roll15", "roll-15", "vigour0.7", "vigour1.3", "vigour1.5",
       "vigour1.5d10", "gbias", "gbias10", "gscale", "glag", "glead", "dec10glag", "rate10g",
       "dec10p25", "dec10p50", "dec10p75", "dec25p10", "dec25p20", "dec25p30",
       "ggaps", "ggaps10", "tempo0.75", "tempo1.33"]
GYRO_VARIANTS = ("gbias", "gbias10", "gscale", "glag", "glead", "dec10glag", "rate10g", "ggaps", "ggaps10")
ROT90 = {"normal": "right-up", "right-up": "bottom-up", "bottom-up": "left-up", "left-up": "normal",
         "undefined": "undefined"}


def read(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        t, x, y, z = line.split(",")
        rows.append((int(t), float(x), float(y), float(z)))
    return rows


def write(path, rows, fmt="%d,%.2f,%.2f,%.2f\n"):
    with open(path, "w") as fh:
        last = None
        for t, x, y, z in rows:
            t = int(round(t))
            if last is not None and t <= last:
                continue
            last = t
            fh.write(fmt % (t, x, y, z))


def decimate(rows, hz, phase_ms=0):
    """The first sample at or after each tick of a clock at hz, keeping its time stamp;
    the ticks start phase_ms after the first sample."""
    dt = 1000.0 / hz
    out, tick = [], rows[0][0] + phase_ms
    for r in rows:
        if r[0] >= tick:
            out.append(r)
            while tick <= r[0]:
                tick += dt
    return out


def at_times(rows, times):
    """For each time, the last row at or before it, stamped with that time (a sensor
    read at those ticks)."""
    out, i = [], 0
    for t in times:
        while i + 1 < len(rows) and rows[i + 1][0] <= t:
            i += 1
        if rows and rows[i][0] <= t:
            out.append((t,) + tuple(rows[i][1:]))
    return out


def interp(rows, t):
    lo, hi = 0, len(rows) - 1
    if t <= rows[0][0]:
        return rows[0][1:]
    if t >= rows[-1][0]:
        return rows[-1][1:]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if rows[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    a, b = rows[lo], rows[hi]
    f = (t - a[0]) / (b[0] - a[0])
    return tuple(a[k] + f * (b[k] - a[k]) for k in (1, 2, 3))


def resample(rows, hz, mode, rnd, jitter=0.0):
    dt = 1000.0 / hz
    out = []
    t = rows[0][0]
    end = rows[-1][0]
    while t <= end:
        tt = t + (rnd.uniform(-jitter, jitter) * dt if jitter and t > rows[0][0] else 0)
        if mode == "interp":
            v = interp(rows, tt)
        elif mode == "nearest":
            v = min(rows, key=lambda r: abs(r[0] - tt))[1:] if len(rows) < 50 else interp_nearest(rows, tt)
        else:  # box average over (tt - dt, tt]
            sel = [r for r in window(rows, tt - dt, tt)]
            v = tuple(sum(r[k] for r in sel) / len(sel) for k in (1, 2, 3)) if sel else interp(rows, tt)
        out.append((tt, *v))
        t += dt
    return out


def interp_nearest(rows, t):
    import bisect
    ts = [r[0] for r in rows]
    i = bisect.bisect_left(ts, t)
    cands = [j for j in (i - 1, i) if 0 <= j < len(rows)]
    j = min(cands, key=lambda j: abs(rows[j][0] - t))
    return rows[j][1:]


def window(rows, a, b):
    import bisect
    ts = [r[0] for r in rows]
    i = bisect.bisect_right(ts, a)
    j = bisect.bisect_right(ts, b)
    return rows[i:j]


def jitter(rows, rnd, frac=0.35):
    out = []
    for k, (t, x, y, z) in enumerate(rows):
        if 0 < k < len(rows) - 1:
            dt = min(t - rows[k - 1][0], rows[k + 1][0] - t)
            t = t + rnd.uniform(-frac, frac) * dt
        out.append((t, x, y, z))
    return out


def gaps(rows, rnd, n=3, length=600):
    end = rows[-1][0]
    starts = [rnd.uniform(600, max(700, end - length - 100)) for _ in range(n)]
    return [r for r in rows if not any(s <= r[0] < s + length for s in starts)]


def gain(rows, rnd, g=0.05):
    gs = [1 + rnd.uniform(-g, g) for _ in range(3)]
    return [(t, x * gs[0], y * gs[1], z * gs[2]) for t, x, y, z in rows]


def offset(rows, rnd, o=0.35):
    os_ = [rnd.uniform(-o, o) for _ in range(3)]
    return [(t, x + os_[0], y + os_[1], z + os_[2]) for t, x, y, z in rows]


def quant(rows, q=0.153):
    return [(t, round(x / q) * q, round(y / q) * q, round(z / q) * q) for t, x, y, z in rows]


def noise(rows, rnd, s=0.15):
    return [(t, x + rnd.gauss(0, s), y + rnd.gauss(0, s), z + rnd.gauss(0, s)) for t, x, y, z in rows]


def vigour(rows, k, window_ms=500.0):
    """Each reading's difference from the centred window_ms average multiplied by k."""
    out, lo, hi = [], 0, 0
    sums = [0.0, 0.0, 0.0]
    for t, x, y, z in rows:
        while hi < len(rows) and rows[hi][0] <= t + window_ms / 2:
            for a in range(3):
                sums[a] += rows[hi][a + 1]
            hi += 1
        while rows[lo][0] < t - window_ms / 2:
            for a in range(3):
                sums[a] -= rows[lo][a + 1]
            lo += 1
        n = hi - lo
        m = [v / n for v in sums]
        out.append((t,) + tuple(m[a] + k * (v - m[a]) for a, v in enumerate((x, y, z))))
    return out


def tempo(rows, k, rate=False):
    """Times divided by k (kept increasing: a sample that would share its millisecond
    with the one before is left out); with `rate`, the values multiplied by k too."""
    out = []
    for t, x, y, z in rows:
        t2 = int(round(t / k))
        if out and t2 <= out[-1][0]:
            continue
        out.append((t2, x * k, y * k, z * k) if rate else (t2, x, y, z))
    return out


def tempo_truth(truth, k):
    """The truth's times divided by k; a transition's deadline stays as long after its
    end as before."""
    def t(v):
        return int(round(v / k))
    truth = dict(truth)
    for key in ("orientation", "tilt"):
        truth[key] = [[t(a), t(b), label, scored] for a, b, label, scored in truth[key]]
    transitions = []
    for tr in truth.get("transitions", []):
        tr = dict(tr)
        after = tr["deadline"] - tr["t_end"]
        tr["t_start"], tr["t_end"] = t(tr["t_start"]), t(tr["t_end"])
        tr["deadline"] = tr["t_end"] + after
        transitions.append(tr)
    truth["transitions"] = transitions
    return truth


def gyro_variant(variant, rows, rnd):
    """The gyroscope readings (rad/s) changed as the variant says (see the docstring)."""
    if variant in ("gbias", "gbias10"):
        b = [math.radians(rnd.uniform(-6, 6)) for _ in range(3)]
        return [(t, x + b[0], y + b[1], z + b[2]) for t, x, y, z in rows]
    if variant == "gscale":
        k = [1 + rnd.uniform(-0.06, 0.06) for _ in range(3)]
        return [(t, x * k[0], y * k[1], z * k[2]) for t, x, y, z in rows]
    if variant in ("rotz90", "rotz180"):
        return rotz(rows, 1 if variant == "rotz90" else 2)
    if variant.startswith("roll"):
        return roll(rows, float(variant[4:]))
    if variant.startswith("tempo"):
        return tempo(rows, float(variant[5:]), rate=True)
    if variant in ("glag", "glead"):
        d = 25 if variant == "glag" else -25
        return [(t + d, x, y, z) for t, x, y, z in rows if t + d >= 0]
    return rows


def rotz(rows, quarter):
    # Rotating the device by 90 deg clockwise maps the gravity reading (x, y) -> (-y, x)
    # in the new device frame so that normal (0,-g) becomes right-up (-g... see README).
    out = []
    for t, x, y, z in rows:
        for _ in range(quarter):
            x, y = y, -x
        out.append((t, x, y, z))
    return out


def roll(rows, degrees):
    # The device turned by `degrees` about its screen normal, toward left-up for a
    # positive angle (phi = atan2(-x, -y) decreases by it).
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [(t, x * c - y * s, x * s + y * c, z) for t, x, y, z in rows]


def rot_truth(truth, quarter):
    tr = json.loads(json.dumps(truth))
    def m(v):
        for _ in range(quarter):
            v = ROT90[v]
        return v
    tr["orientation"] = [[a, b, m(l), s] for a, b, l, s in tr["orientation"]]
    for x in tr.get("transitions", []):
        x["from"] = m(x["from"]); x["to"] = m(x["to"]); x["via"] = [m(v) for v in x.get("via", [])]
    return tr


def running(rows, rnd, truth):
    """Running bursts inside the scored holds of at least 5 s (1 s kept calm at each end):
    a person runs with the device held still in the hand, then stops to turn it."""
    spans = [(a + 1000, b - 1000) for a, b, _, scored in truth["orientation"] if scored and b - a >= 5000]
    ran = running_all(rows, rnd)
    return [r2 if any(a <= r[0] < b for a, b in spans) else r for r, r2 in zip(rows, ran)]


def stride_frames(rows):
    """Each sample with the trace's own gravity direction `up` (a 0.5 s low-pass of it,
    device frame) and two horizontal directions: sideways `h` (in the screen plane, up x
    screen normal) and fore-aft `f` (perpendicular to both)."""
    lx, ly, lz = rows[0][1], rows[0][2], rows[0][3]
    prev = rows[0][0]
    for t, x, y, z in rows:
        k = 1 - math.exp(-max(0.0, t - prev) / 500.0)
        prev = t
        lx += k * (x - lx); ly += k * (y - ly); lz += k * (z - lz)
        n = math.sqrt(lx * lx + ly * ly + lz * lz) or 1.0
        up = (lx / n, ly / n, lz / n)
        hn = math.sqrt(up[1] * up[1] + up[0] * up[0]) or 1.0
        h = (up[1] / hn, -up[0] / hn, 0.0)
        f = (h[1] * up[2] - h[2] * up[1], h[2] * up[0] - h[0] * up[2], h[0] * up[1] - h[1] * up[0])
        yield t, (x, y, z), up, h, f


def plus_forces(v, up, h, f, vertical, side, fore):
    """The reading `v` with linear accelerations (in g) along up, h and f added."""
    g = 9.81
    return tuple(c + g * (vertical * u + side * hc + fore * fc) for c, u, hc, fc in zip(v, up, h, f))


def running_all(rows, rnd):
    f = rnd.uniform(2.6, 3.0)
    av, ah, af = rnd.uniform(0.45, 0.6), rnd.uniform(0.25, 0.35), 0.2
    p0 = rnd.uniform(0, 2 * math.pi)
    out = []
    for t, v, up, h, fa_axis in stride_frames(rows):
        w = 2 * math.pi * f * t / 1000.0 + p0
        out.append((t,) + plus_forces(v, up, h, fa_axis, av * math.sin(w) + 0.2 * math.sin(2 * w + 0.7),
                                      ah * math.sin(w / 2), af * math.sin(w + 1.3)))
    return out


def rotate(v, axis, angle):
    """v turned by `angle` (radians) about the unit vector `axis` (Rodrigues)."""
    ax, ay, az = axis
    c, s = math.cos(angle), math.sin(angle)
    x, y, z = v
    d = ax * x + ay * y + az * z
    return (x * c + (ay * z - az * y) * s + ax * d * (1 - c),
            y * c + (az * x - ax * z) * s + ay * d * (1 - c),
            z * c + (ax * y - ay * x) * s + az * d * (1 - c))


def running_swing(rows, rnd, truth, strength, everywhere=False, swing=True):
    """`runswing`: inside the same spans as `running`, a harder run with the arm swinging
    (`runall`: everywhere, the device not swung)."""
    spans = [(a + 1000, b - 1000) for a, b, _, scored in truth["orientation"] if scored and b - a >= 5000]
    if everywhere:
        spans = [(rows[0][0], rows[-1][0] + 1)]
    f = rnd.uniform(2.6, 3.0)
    av, ah, af = strength * rnd.uniform(0.6, 0.8), strength * rnd.uniform(0.25, 0.35), strength * 0.4
    p0 = rnd.uniform(0, 2 * math.pi)
    out = []
    for t, v, up, h, fa_axis in stride_frames(rows):
        if not any(a <= t < b for a, b in spans):
            out.append((t,) + v)
            continue
        w = 2 * math.pi * f * t / 1000.0 + p0
        s = plus_forces(v, up, h, fa_axis, av * math.sin(w) + 0.25 * strength * math.sin(2 * w + 0.7),
                        ah * math.sin(w / 2), af * math.sin(w / 2 + 1.3))
        if swing:
            s = rotate(s, fa_axis, math.radians(20) * math.sin(w / 2 + 0.4))
            s = rotate(s, h, math.radians(25) * math.sin(w / 2 + 1.1))
        out.append((t,) + s)
    return out


def main():
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(__doc__)
        return
    opt = {"--traces": None, "--out": None, "--seed": "1", "--variants": ",".join(ALL)}
    usage = "usage: augment.py --traces DIR --out OUTDIR [--seed N] [--variants a,b,...] (--help: the variants)"
    i = 0
    while i < len(args):
        if args[i] in opt and i + 1 < len(args):
            opt[args[i]] = args[i + 1]; i += 2
        else:
            sys.exit("augment.py: %s: unknown option or missing value\n%s" % (args[i], usage))
    if not opt["--traces"] or not opt["--out"]:
        sys.exit("augment.py: --traces and --out are needed\n" + usage)
    if not os.path.isdir(opt["--traces"]):
        sys.exit("augment.py: --traces %s: not a folder" % opt["--traces"])
    try:
        seed = int(opt["--seed"])
    except ValueError:
        sys.exit("augment.py: --seed %s: not a whole number" % opt["--seed"])
    unknown = [v for v in opt["--variants"].split(",") if v not in ALL]
    if unknown:
        sys.exit("augment.py: unknown variant %s (--help lists them)" % ", ".join(unknown))
    names = sorted(f[:-4] for f in os.listdir(opt["--traces"]) if f.endswith(".csv"))
    for variant in opt["--variants"].split(","):
        d = os.path.join(opt["--out"], variant)
        os.makedirs(d, exist_ok=True)
        for n in names:
            rnd = random.Random("%s/%s/%d" % (variant, n, seed))
            rows = read(os.path.join(opt["--traces"], n + ".csv"))
            truth = json.load(open(os.path.join(opt["--traces"], n + ".truth.json")))
            if variant == "jitter": rows = jitter(rows, rnd)
            elif variant == "rate10": rows = resample(rows, 10, "box", rnd)
            elif variant == "rate10raw": rows = resample(rows, 10, "nearest", rnd)
            elif variant == "rate200": rows = resample(rows, 200, "interp", rnd)
            elif variant == "rate25j": rows = resample(rows, 25, "interp", rnd, jitter=0.3)
            elif variant == "gaps": rows = gaps(rows, rnd)
            elif variant == "gain": rows = gain(rows, rnd)
            elif variant == "offset": rows = offset(rows, rnd)
            elif variant == "quant": rows = quant(rows)
            elif variant == "noise": rows = noise(rows, rnd)
            elif variant == "rotz90": rows = rotz(rows, 1); truth = rot_truth(truth, 1)
            elif variant == "rotz180": rows = rotz(rows, 2); truth = rot_truth(truth, 2)
            elif variant.startswith("roll"): rows = roll(rows, float(variant[4:]))
            elif variant in ("combo", "combo10"):
                if variant == "combo10": rows = resample(rows, 10, "box", rnd)
                rows = jitter(rows, rnd, 0.3)
                rows = gain(rows, rnd); rows = offset(rows, rnd, 0.25)
                rows = noise(rows, rnd, 0.1); rows = quant(rows)
                rows = gaps(rows, rnd, n=2)
            elif variant == "run": rows = running(rows, rnd, truth)
            elif variant in ("runswing", "runswing2", "runall"):
                if variant == "runall":
                    rows = running_swing(rows, rnd, truth, 1.0, everywhere=True, swing=False)
                else:
                    rows = running_swing(rows, rnd, truth, 2.0 if variant == "runswing2" else 1.0)
                truth["tilt"] = [[a, b, label, 0] for a, b, label, _ in truth["tilt"]]
            elif variant.startswith("vigour"):
                rows = vigour(rows, float(variant[6:].split("d")[0]))
                if variant.endswith("d10"):
                    rows = decimate(rows, 10)
            elif variant == "dec10": rows = decimate(rows, 10)
            elif variant in ("dec25", "dec20", "dec50"): rows = decimate(rows, int(variant[3:]))
            elif re.fullmatch(r"dec\d+p\d+", variant):
                hz, phase = variant[3:].split("p")
                rows = decimate(rows, int(hz), int(phase))
            elif variant in GYRO_VARIANTS:
                if variant in ("gbias10", "dec10glag", "ggaps10"): rows = decimate(rows, 10)
                if variant == "rate10g": rows = resample(rows, 10, "box", random.Random("rate10g/%s/%d" % (n, seed)))
            elif variant.startswith("tempo"):
                rows = tempo(rows, float(variant[5:])); truth = tempo_truth(truth, float(variant[5:]))
            elif variant.startswith("scale"):
                f = float(variant[5:])
                rows = [(t, x * f, y * f, z * f) for t, x, y, z in rows]
            else:
                sys.exit("unknown variant " + variant)
            fmt = "%d,%.6g,%.6g,%.6g\n" if variant.startswith("scale") else "%d,%.2f,%.2f,%.2f\n"
            write(os.path.join(d, n + ".csv"), rows, fmt)
            gyro = os.path.join(opt["--traces"], "gyro", n + ".csv")
            phased = re.fullmatch(r"dec\d+p\d+", variant) is not None
            if (variant in ("dec10", "dec25", "dec20", "dec50", "run", "runall", "rotz90", "rotz180") or variant.startswith("vigour")
                    or variant.startswith("roll") or variant.startswith("tempo") or variant in GYRO_VARIANTS or phased) \
                    and os.path.exists(gyro):
                os.makedirs(os.path.join(d, "gyro"), exist_ok=True)
                g = gyro_variant(variant, read(gyro), rnd)
                if variant in ("dec10", "dec25", "dec20", "dec50", "vigour1.5d10", "gbias10", "ggaps10") or phased:
                    g = at_times(g, [r[0] for r in rows])
                if variant in ("ggaps", "ggaps10") and g:
                    end = g[-1][0]
                    silent = [(a, a + 600) for a in (rnd.uniform(0, end) for _ in range(4))]
                    silent.append((lambda a: (a, a + 3000))(rnd.uniform(0, end)))
                    g = [r for r in g if not any(a <= r[0] < b for a, b in silent)]
                elif variant == "dec10glag":
                    g = at_times(g, [r[0] + 50 for r in rows])
                elif variant == "rate10g":
                    g = resample(g, 10, "box", random.Random("rate10g/gyro/%s/%d" % (n, seed)))
                write(os.path.join(d, "gyro", n + ".csv"), g, "%d,%.5f,%.5f,%.5f\n")
            with open(os.path.join(d, n + ".truth.json"), "w") as fh:
                json.dump(truth, fh)
    print("wrote", opt["--out"])


if __name__ == "__main__":
    main()
