#!/usr/bin/env python3
"""Inject synthetic shakes into the dev traces that have no transitions (steady, shakes,
boundary, tilted_back without rotations) to stress shake rejection.

    shakes.py --traces DIR --out OUTDIR [--seed N] [--dangerous] [--max-ms 600]

Every 1.6-2.4 s a half-sine (or, at random, a two-lobe jerk with rebound) pulse of
1.5-3 g lasting 30..max-ms ms is added. Directions are uniform on the sphere, or with
--dangerous drawn 120-180 degrees from gravity (the pulses that can turn the apparent
gravity vector around while its magnitude stays near 1 g). The truth files are copied
unchanged: the orientation must not change.
"""
import argparse, json, math, os, random


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--traces", required=True, help="folder of traces with .truth.json files (the synthetic set)")
    ap.add_argument("--out", required=True, help="folder to write the shaken copies to (created)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--max-ms", type=float, default=600, help="longest pulse in ms (default 600, at least 30)")
    ap.add_argument("--dangerous", action="store_true",
                    help="pulses 120-180 degrees from gravity, that can turn the apparent gravity around")
    args = ap.parse_args()
    if not os.path.isdir(args.traces):
        ap.error("--traces %s: not a folder" % args.traces)
    if not args.max_ms >= 30:
        ap.error("--max-ms must be at least 30")
    opt = {"--traces": args.traces, "--out": args.out}
    dangerous = args.dangerous
    rnd = random.Random(args.seed)
    maxms = args.max_ms
    os.makedirs(opt["--out"], exist_ok=True)
    for fn in sorted(os.listdir(opt["--traces"])):
        if not fn.endswith(".truth.json"):
            continue
        name = fn[:-11]
        truth = json.load(open(os.path.join(opt["--traces"], fn)))
        if truth.get("transitions"):
            continue
        rows = [list(map(float, l.split(","))) for l in open(os.path.join(opt["--traces"], name + ".csv"))
                if l.strip() and not l.startswith("#")]
        end = rows[-1][0]
        t = 800 + rnd.uniform(0, 800)
        pulses = []
        while t < end - 700:
            A = rnd.uniform(1.5, 3.0) * 9.81
            D = rnd.uniform(30, maxms)
            # gravity direction around t: mean of the preceding 200 ms
            pre = [r for r in rows if t - 200 <= r[0] < t] or rows[:1]
            g = [sum(r[k] for r in pre) / len(pre) for k in (1, 2, 3)]
            gm = math.sqrt(sum(v * v for v in g))
            gh = [v / gm for v in g]
            while True:
                u = [rnd.gauss(0, 1) for _ in range(3)]
                um = math.sqrt(sum(v * v for v in u))
                u = [v / um for v in u]
                cos_a = sum(u[k] * gh[k] for k in range(3))
                if not dangerous or cos_a < math.cos(math.radians(120)):
                    break
            kind = rnd.choice(["sine", "sine", "jerk"])
            pulses.append((t, D, A, u, kind, gh))
            t += rnd.uniform(1600, 2400)
        out = []
        for r in rows:
            x, y, z = r[1], r[2], r[3]
            for (t0, D, A, u, kind, _) in pulses:
                if t0 <= r[0] < t0 + D:
                    p = (r[0] - t0) / D
                    s = math.sin(math.pi * p) if kind == "sine" else math.sin(2 * math.pi * p) * (1 if p < 0.5 else 0.6)
                    x += A * s * u[0]; y += A * s * u[1]; z += A * s * u[2]
            out.append((r[0], x, y, z))
        with open(os.path.join(opt["--out"], name + ".csv"), "w") as fh:
            for t_, x, y, z in out:
                fh.write("%d,%.2f,%.2f,%.2f\n" % (t_, x, y, z))
        truth["injected"] = [dict(t_ms=round(t0), dur_ms=round(D), g=round(A / 9.81, 2), kind=kind,
                                  alpha_deg=round(math.degrees(math.acos(max(-1, min(1, sum(u[k] * gh_[k] for k in range(3)))))), 1))
                             for (t0, D, A, u, kind, gh_) in pulses]
        with open(os.path.join(opt["--out"], name + ".truth.json"), "w") as fh:
            json.dump(truth, fh)


if __name__ == "__main__":
    main()
