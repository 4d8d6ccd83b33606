#!/usr/bin/env python3
"""Plots of `spx bench --json` output (matplotlib; `scripts/setup --plots` installs it).

    python3 bench/plot.py results.json [more.json ...] -o plots/

writes, per (op, precision) found in the results:
  bars_<op>_<prec>.png     GB/s of every kernel on every matrix, grouped by matrix, with the
                           measured copy bandwidth as a dashed line (minimum-traffic GB/s beside it
                           is in the JSON as gbs_min)
  profile_<op>_<prec>.png  performance profile (Dolan & More, Math. Programming 91, 2002): for each
                           kernel, the fraction of matrices on which its time is within a factor tau
                           of the best kernel's time on that matrix. Higher and further left is better.
Results that failed their check are drawn hatched in the bars and count as failures (time = inf)
in the profile. Several JSON files (e.g. a CPU and a GPU run) can be given; kernels are then
labelled with the device. Files ending in .gz (the committed results) are read as gzip.
"""
import argparse
import gzip
import json
import math
import os
import sys
from collections import OrderedDict, defaultdict


def load(paths):
    results, devices = [], []
    for path in paths:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            doc = json.load(f)
        device = doc.get("device", {}).get("name", "?")
        devices.append(doc.get("device", {}))
        for r in doc.get("results", []):
            r = dict(r)
            r["_device"] = device
            results.append(r)
    return results, devices


def op_label(r):
    if r["op"] == "spmm":
        return f"spmm{r['cols_dense']}"
    if r["op"] == "gemm":
        return "gemm"
    return "spmv"


def kernel_label(r, several_devices):
    return f"{r['kernel']} ({r['_device']})" if several_devices else r["kernel"]


def bar_chart(plt, groups, kernels, title, copy_gbs, path):
    matrices = list(groups.keys())
    width = 0.8 / max(1, len(kernels))
    fig, ax = plt.subplots(figsize=(min(16.0, max(7.0, 2.0 + 0.22 * len(matrices) * max(1, len(kernels)))), 5.0))
    cmap = plt.get_cmap("tab20")
    for k, kernel in enumerate(kernels):
        xs, heights, failed = [], [], []
        for m, matrix in enumerate(matrices):
            r = groups[matrix].get(kernel)
            if r is None:
                continue
            xs.append(m + (k - (len(kernels) - 1) / 2) * width)
            heights.append(r.get("gbs") or 0.0)
            failed.append(not r.get("checked", False))
        bars = ax.bar(xs, heights, width, label=kernel, color=cmap(k % 20))
        for bar, bad in zip(bars, failed):
            if bad:
                bar.set_hatch("xx")
    if copy_gbs:
        ax.axhline(copy_gbs, color="black", linestyle="--", linewidth=1, label=f"copy {copy_gbs:.0f} GB/s")
    ax.set_xticks(range(len(matrices)))
    ax.set_xticklabels(matrices, rotation=30, ha="right")
    ax.set_ylabel("GB/s (effective, Reguly-Giles eq. 2)")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def performance_profile(plt, groups, kernels, title, path):
    # ratio[kernel] = list over matrices of time / best time on that matrix (inf: missing or failed)
    ratios = {k: [] for k in kernels}
    for matrix, by_kernel in groups.items():
        times = {}
        for k in kernels:
            r = by_kernel.get(k)
            ok = r is not None and r.get("checked", False) and (r.get("ms_median") or 0) > 0
            times[k] = r["ms_median"] if ok else math.inf
        best = min(times.values())
        if not math.isfinite(best):
            continue
        for k in kernels:
            ratios[k].append(times[k] / best)
    n = max((len(v) for v in ratios.values()), default=0)
    if n == 0:
        return False
    finite = [x for v in ratios.values() for x in v if math.isfinite(x)]
    tau_max = max(2.0, min(max(finite) * 1.1, 1e4))
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    # tab20 plus dashed vendor lines: the default 10-colour cycle repeats once a run has more kernels.
    cmap = plt.get_cmap("tab20")
    for i, k in enumerate(kernels):
        xs = sorted(ratios[k])
        taus = [1.0] + [x for x in xs if math.isfinite(x)] + [tau_max]
        fractions = [sum(1 for x in xs if x <= t) / n for t in taus]
        ax.step(taus, fractions, where="post", label=k, color=cmap(i % 20),
                linestyle="--" if k.startswith(("cusparse", "cublas")) else "-")
    ax.set_xscale("log")
    ax.set_xlim(1.0, tau_max)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("tau: time within this factor of the best kernel")
    ax.set_ylabel(f"fraction of matrices (of {n})")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("json", nargs="+", help="spx bench --json output files")
    parser.add_argument("-o", "--output", default="plots", help="output folder (default: plots)")
    args = parser.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # Debian's python3-matplotlib lives under the system interpreter; a pyenv/venv python3 on
        # the PATH does not see it, so retry with the system one once.
        system = "/usr/bin/python3"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system):
            os.execv(system, [system, os.path.abspath(__file__)] + argv)
        sys.exit("plot.py needs matplotlib: scripts/setup --plots (or apt-get install python3-matplotlib)")

    results, devices = load(args.json)
    if not results:
        sys.exit("plot.py: no results in " + ", ".join(args.json))
    several = len({r["_device"] for r in results}) > 1
    copy_gbs = devices[0].get("copy_gbs") if len(devices) == 1 else None
    os.makedirs(args.output, exist_ok=True)

    by_op = defaultdict(lambda: OrderedDict())  # (op, prec) -> matrix -> kernel -> result
    kernels_of = defaultdict(list)
    for r in results:
        key = (op_label(r), r["precision"])
        label = kernel_label(r, several)
        by_op[key].setdefault(r["matrix"], {})[label] = r
        if label not in kernels_of[key]:
            kernels_of[key].append(label)

    written = []
    for (op, prec), groups in by_op.items():
        kernels = kernels_of[(op, prec)]
        title = f"{op} {prec}"
        bars = os.path.join(args.output, f"bars_{op}_{prec}.png")
        bar_chart(plt, groups, kernels, title, copy_gbs, bars)
        written.append(bars)
        profile = os.path.join(args.output, f"profile_{op}_{prec}.png")
        if performance_profile(plt, groups, kernels, f"performance profile, {title}", profile):
            written.append(profile)
    for path in written:
        print("wrote", path)


if __name__ == "__main__":
    main(sys.argv[1:])
