#!/usr/bin/env python3
"""Byte-flip fuzzing of model loading: corrupts a model file many times and runs
`vkinfer plan` (no GPU) or `vkinfer run` on each copy; every outcome must be success or a
clean `vkinfer: error:` exit, never a signal or an unexplained failure.

  fuzz_model.py VKINFER MODEL plan|run [--input FILE] [--shape NAME=DIMS] [--count N] [--seed S]

Prints the outcome counts and the most common error messages; exits 1 if any case crashed
(the corrupted model is kept as bad_<mode>_<k>.onnx in the current folder).
"""
import argparse
import collections
import random
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vkinfer")
    ap.add_argument("model")
    ap.add_argument("mode", choices=["plan", "run"])
    ap.add_argument("--input", help="input for run (-i)")
    ap.add_argument("--shape", help="--shape for plan of a dynamic model")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    src = open(a.model, "rb").read()
    rng = random.Random(a.seed)
    outcomes, messages, bad = collections.Counter(), collections.Counter(), 0
    for k in range(a.count):
        b = bytearray(src)
        if rng.random() < 0.2:
            b = b[:rng.randrange(len(b))]  # truncated
        else:  # weights are most of the bytes and any float is valid: aim at the structure
            for _ in range(rng.randint(1, 4)):
                if rng.random() < 0.3:
                    pos = rng.randrange(len(b))
                else:
                    pos = rng.choice([rng.randrange(min(2000, len(b))), rng.randrange(max(0, len(b) - 3000), len(b))])
                b[pos] = rng.randrange(256)
        with open("fuzz_model.onnx", "wb") as f:
            f.write(b)
        cmd = [a.vkinfer, a.mode, "fuzz_model.onnx"]
        if a.mode == "plan" and a.shape:
            cmd += ["--shape", a.shape]
        if a.mode == "run" and a.input:
            cmd += ["-i", a.input]
        p = subprocess.run(cmd, capture_output=True, timeout=300)
        outcomes[p.returncode] += 1
        err = p.stderr.decode("utf-8", "backslashreplace")
        if p.returncode:
            messages[err[:100]] += 1
        if p.returncode < 0 or p.returncode >= 128 or (p.returncode != 0 and "vkinfer: error:" not in err):
            bad += 1
            with open(f"bad_{a.mode}_{k}.onnx", "wb") as f:
                f.write(b)
            print(f"CRASH case {k}: exit {p.returncode}: {err[-300:]}")
    print(f"{a.mode}: {a.count} cases, exit codes {dict(outcomes)}, crashes {bad}")
    for m, n in messages.most_common(8):
        print(f"  {n:4}  {m.strip()}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
