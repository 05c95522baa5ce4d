#!/usr/bin/env python3
"""Change the posture of dev traces: tilt the screen by DELTA degrees about the horizontal
axis in the screen plane (positive: screen toward the sky), keeping the roll angle phi.

    posture.py --traces DIR --out OUTDIR --delta DEG [--scenarios a,b,...] [--max-elevation DEG]
               [--axis gravity|device-x]

--axis gravity (the default) turns each reading about the horizontal axis that follows the
in-plane direction of gravity, so phi is kept whatever it is. On a trace held near flat
(texting) phi is mostly noise (the in-plane part of gravity is small), and keeping it
while raising the screen amplifies that noise into the hand turning the phone about its
normal: use --axis device-x there, which turns every reading about the device's own x
axis (the screen's horizontal in portrait): a hand that holds the phone flatter
(positive DELTA) or more upright (negative DELTA; texting -10 ... -40).

Only traces that never lie flat are transformed (by default the synthetic scenarios steady,
rotate_*, tremor, walking, shakes, boundary; for the real recordings e.g.
--scenarios ar-walking,texting,phoning), and only those whose elevation stays below
--max-elevation (default 62 degrees) in 98 % of their samples afterwards. The orientation
truth stays valid; the tilt truth does not (ignore tilt metrics).
The rotation axis follows a centred 200 ms average of the in-plane gravity direction.
"""
import json, math, os, sys

SCEN = ("steady", "rotate_slow", "rotate_fast", "tremor", "walking", "shakes", "boundary")


def main():
    a = sys.argv[1:]
    if "-h" in a or "--help" in a:
        print(__doc__.strip())
        return
    known = ("--traces", "--out", "--delta", "--scenarios", "--max-elevation", "--axis")
    if len(a) % 2 or any(k not in known for k in a[::2]):
        sys.exit("posture.py: options come in pairs, among " + ", ".join(known) + " (--help)")
    opt = dict(zip(a[::2], a[1::2]))
    missing = [k for k in ("--traces", "--out", "--delta") if k not in opt]
    if missing:
        sys.exit("posture.py: missing " + ", ".join(missing) + " (--help)")
    try:
        delta_deg = float(opt["--delta"])
    except ValueError:
        sys.exit(f"posture.py: --delta {opt['--delta']!r} is not a number of degrees")
    # Rotating the reading by -delta about k = z x p raises the screen normal by delta.
    src, out, delta = opt["--traces"], opt["--out"], -math.radians(delta_deg)
    scenarios = tuple(opt["--scenarios"].split(",")) if "--scenarios" in opt else SCEN
    max_elevation = float(opt.get("--max-elevation", 62))
    axis = opt.get("--axis", "gravity")
    if axis not in ("gravity", "device-x"):
        sys.exit("posture.py: --axis must be gravity or device-x")
    os.makedirs(out, exist_ok=True)
    matched = written = 0
    for fn in sorted(os.listdir(src)):
        if not fn.endswith(".truth.json"):
            continue
        name = fn[:-11]
        truth = json.load(open(os.path.join(src, fn)))
        if truth.get("scenario") not in scenarios:
            continue
        matched += 1
        rows = [list(map(float, l.split(","))) for l in open(os.path.join(src, name + ".csv"))
                if l.strip() and not l.startswith("#")]
        n = len(rows)
        if axis == "device-x":
            # About x: y' = y cos d - z sin d, z' = y sin d + z cos d, with d = -DELTA:
            # raising the top edge of a face-up phone moves gravity's reading from z
            # toward -y (lower elevation, toward normal).
            c, s = math.cos(delta), math.sin(delta)
            res = [(t, x, y * c - z * s, y * s + z * c) for t, x, y, z in rows]
            written += write(out, name, truth, res, max_elevation)
            continue
        # centred moving average of (x, y) over +-100 ms
        j0 = j1 = 0
        sx = sy = 0.0
        res = []
        for i, r in enumerate(rows):
            while j1 < n and rows[j1][0] <= r[0] + 100:
                sx += rows[j1][1]; sy += rows[j1][2]; j1 += 1
            while rows[j0][0] < r[0] - 100:
                sx -= rows[j0][1]; sy -= rows[j0][2]; j0 += 1
            pm = math.hypot(sx, sy) or 1.0
            px, py = sx / pm, sy / pm          # in-plane "down" direction of gravity reading
            # axis k = z x p (horizontal, in the screen plane); rotating the reading about k
            kx, ky, kz = -py, px, 0.0
            v = r[1:]
            c, s = math.cos(delta), math.sin(delta)
            dot = kx * v[0] + ky * v[1]
            cx, cy, cz = ky * v[2] - kz * v[1], kz * v[0] - kx * v[2], kx * v[1] - ky * v[0]
            w = [v[0] * c + cx * s + kx * dot * (1 - c),
                 v[1] * c + cy * s + ky * dot * (1 - c),
                 v[2] * c + cz * s + kz * dot * (1 - c)]
            res.append((r[0], *w))
        written += write(out, name, truth, res, max_elevation)
    if not matched:
        sys.exit(f"posture.py: no trace in {src} is of the scenarios {','.join(scenarios)}: "
                 "nothing written (--scenarios, --help)")
    if not written:
        sys.exit(f"posture.py: none of the {matched} traces of the scenarios {','.join(scenarios)} stays "
                 f"below {max_elevation:g} degrees of elevation once changed: nothing written (--max-elevation)")
    print(f"posture.py: {written} traces written to {out}", file=sys.stderr)


def write(out, name, truth, res, max_elevation):
    """Writes one transformed trace, unless it would come near flat: its orientation
    truth would not hold. Returns the number of traces written (0 or 1)."""
    els = sorted(abs(math.degrees(math.atan2(z, math.hypot(x, y)))) for _, x, y, z in res)
    if els[int(0.98 * (len(els) - 1))] > max_elevation:
        return 0
    with open(os.path.join(out, name + ".csv"), "w") as fh:
        for t, x, y, z in res:
            fh.write("%d,%.2f,%.2f,%.2f\n" % (t, x, y, z))
    json.dump(truth, open(os.path.join(out, name + ".truth.json"), "w"))
    return 1


if __name__ == "__main__":
    main()
