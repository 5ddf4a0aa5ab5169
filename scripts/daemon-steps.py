#!/usr/bin/env python3
"""Every partition step of a daemon run, with its wall time, CPU and memory.

  scripts/daemon-steps.py DAEMON_LOG MEM_TSV

DAEMON_LOG is the daemon's log at --log-level debug (its "partition step"
lines); MEM_TSV the samples the scripts/fullsize-*.sh scripts take of the
daemon from outside (unix_seconds, rss_anon_kib, rss_file_kib, vm_hwm_kib,
cpu_ticks). Prints, per partition and step, the wall time, the CPU the
process used across it and the peak anonymous and file-backed memory
sampled inside it (steps of two partitions that overlap share their
samples; a step shorter than the sampling interval gets the nearest
sample), then the totals per step over all partitions. Prints nothing when
either file holds no data.
"""
import datetime
import os
import re
import sys


def main(log, tsv):
    hz = os.sysconf("SC_CLK_TCK")
    steps = []
    for line in open(log):
        if "partition step" not in line:
            continue
        t = re.search(r'time=(\S+)', line).group(1)
        ts = datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
        p = int(re.search(r'partition=(\d+)', line).group(1))
        st = re.search(r'step=("([^"]*)"|\S+)', line)
        steps.append((ts, p, st.group(2) if st.group(2) is not None else st.group(1)))
    rows = [l.split("\t") for l in open(tsv).read().splitlines()[1:]]
    mem = [(float(r[0]), int(r[1]), int(r[2]), int(r[4])) for r in rows if len(r) == 5]
    if not steps or not mem:
        return
    per = {}
    for ts, p, st in steps:
        per.setdefault(p, []).append((ts, st))
    print("%-4s %-18s %9s %9s %10s %10s" % ("part", "step", "wall s", "cpu s", "anon GiB", "file GiB"))
    tot = {}
    for p in sorted(per):
        seq = per[p]
        for i, (ts, st) in enumerate(seq):
            if st == "done":
                continue
            end = seq[i + 1][0] if i + 1 < len(seq) else ts
            inside = [m for m in mem if ts <= m[0] <= end] or [min(mem, key=lambda m: abs(m[0] - ts))]
            before = [m for m in mem if m[0] <= ts] or mem[:1]
            after = [m for m in mem if m[0] >= end] or mem[-1:]
            cpu = (after[0][3] - before[-1][3]) / hz
            a, f = max(m[1] for m in inside) / 2**20, max(m[2] for m in inside) / 2**20
            print("%-4d %-18s %9.1f %9.1f %10.2f %10.2f" % (p, st, end - ts, cpu, a, f))
            w, c, pa, pf = tot.get(st, (0, 0, 0, 0))
            tot[st] = (w + end - ts, c + cpu, max(pa, a), max(pf, f))
    print("all partitions, per step: total wall, total CPU, peak anon, peak file")
    for st, (w, c, a, f) in tot.items():
        print("%-23s %9.1f %9.1f %10.2f %10.2f" % (st, w, c, a, f))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: daemon-steps.py DAEMON_LOG MEM_TSV")
    main(sys.argv[1], sys.argv[2])
