"""The known-cost workload's check (progs/lines_known.c): each kernel's
share of the kernels' samples against its share of the CPU time the program
measured, within 3 standard deviations (sigma from the true share and the
samples counted).  Used by test_lines_known.sh and test_lines_nodebug.sh."""
import math


def check_kernel_shares(truth_cpu, got, bad):
    """truth_cpu: kernel -> CPU ns; got: kernel -> samples.  Prints a line a
    kernel and appends to bad what lies beyond 3 sigma."""
    n = sum(got.values())
    total = sum(truth_cpu.values())
    for k in sorted(truth_cpu):
        p = truth_cpu[k] / total
        share = got[k] / n if n else 0
        sd = math.sqrt(p * (1 - p) / n) if n else 1
        print(f"  {k:13s} truth {p:.3f}  sampled {share:.3f}  ({(share - p) / sd:+.1f} sigma)")
        if abs(share - p) > 3 * sd:
            bad.append(f"{k}: sampled share {share:.3f}, truth {p:.3f} +- 3 x {sd:.3f}")
