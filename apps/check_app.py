#!/usr/bin/env python3
"""Runs an app under mpiexec and its NumPy twin with the same arguments, and compares their results.

    check_app.py --mpiexec mpiexec --np 3 --program build/apps/tessera-jacobi --twin apps/jacobi.py -- --n 64

A result is a line of exactly two words, a name and a number (`energy 1.2345678901234567e+02`);
every other line (headers, timings, `check passed`) is ignored. Both must print the same names in
the same order; integers (no '.', 'e', 'inf' or 'nan') must be equal, other numbers agree to a
relative `--rtol` (1e-9). The program must exit with 0. `--warmup N` goes to the program only
(the twin has no warm-up; the program's results must not depend on it).
"""
import argparse
import math
import re
import subprocess
import sys

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\[\]]*$")


def results(text):
    out = []
    for line in text.splitlines():
        words = line.split()
        if len(words) != 2 or not NAME.match(words[0]):
            continue
        try:
            float(words[1])
        except ValueError:
            continue
        out.append((words[0], words[1]))
    return out


def agree(a, b, rtol):
    if re.fullmatch(r"[-+]?\d+", a) and re.fullmatch(r"[-+]?\d+", b):
        return int(a) == int(b)
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return False
    return abs(x - y) <= rtol * max(abs(x), abs(y)) or x == y


def run(command, what):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stdout.write(f"$ {' '.join(command)}\n{done.stdout}")
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        sys.exit(f"check_app: the {what} exited with {done.returncode}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--twin", required=True)
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--warmup", type=int, default=0, help="the program's --warmup")
    parser.add_argument("args", nargs="*")
    o = parser.parse_args()
    want = results(run([sys.executable, o.twin] + o.args, "twin"))
    warmup = ["--warmup", str(o.warmup)] if o.warmup else []
    got = results(run([o.mpiexec, "-n", str(o.np), "--oversubscribe", o.program] + o.args + warmup, "program"))
    if not want:
        sys.exit("check_app: the twin printed no results")
    bad = []
    if [k for k, _ in got] != [k for k, _ in want]:
        bad.append(f"names differ: program {[k for k, _ in got]}, twin {[k for k, _ in want]}")
    else:
        for (k, a), (_, b) in zip(got, want):
            if not agree(a, b, o.rtol):
                rel = abs(float(a) - float(b)) / max(abs(float(a)), abs(float(b)), 1e-300)
                bad.append(f"{k}: program {a}, twin {b} (relative difference {rel:.3g})")
    if bad:
        sys.exit("check_app: FAILED at np %d\n  %s" % (o.np, "\n  ".join(bad)))
    print(f"check_app: {len(want)} results agree at np {o.np} (rtol {o.rtol:g})")


if __name__ == "__main__":
    main()
