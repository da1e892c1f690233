#!/usr/bin/env python3
# predict-bounds.py SRC PAGESIM_DIR - the predictions of scripts/fidelity.py's reclaim-predict
# section that the model is held to, checked against the kernel by their bounds rather than by
# their figures: the kernel's sign and a size within 30% of the kernel's change; for
# vm.zone_reclaim_mode 0 -> 1 also the predicted numa_miss within 30% of the kernel's mode-1 mean;
# the node reclaim predicted under mode 1 (pgsteal_direct) within 30% of the kernel's; and where
# the kernel's own change is within its spread, the model's change inside the kernel's interval of
# two standard errors.
import subprocess, sys

src, bindir = sys.argv[1], sys.argv[2]
out = subprocess.run([sys.executable, f"{src}/scripts/fidelity.py", "--build", bindir, "--testdata", f"{src}/testdata",
                      "--section", "reclaim-predict"], capture_output=True, text=True, check=True).stdout
B32 = "32 MiB on CPUs 0-1, 16 MiB on 2-3"
# (kernel, nodes, ring buffer, from, replayed with)
HELD = [("6.1", "2", B32, "defaults", "vm.zone_reclaim_mode=1"),
        ("6.1", "2", B32, "vm.zone_reclaim_mode=1", "vm.zone_reclaim_mode=0"),
        ("6.1", "4", "16 MiB*", "defaults", "vm.zone_reclaim_mode=1"),
        ("6.1", "4", "16 MiB*", "vm.zone_reclaim_mode=1", "vm.zone_reclaim_mode=0"),
        ("6.1", "2", B32, "vm.watermark_boost_factor=0", "vm.watermark_boost_factor=15000"),
        ("6.1", "2", "16 MiB*", "vm.watermark_boost_factor=0", "vm.watermark_boost_factor=15000"),
        ("6.1", "2", B32, "defaults", "vm.watermark_scale_factor=200")]
RECLAIM = [("6.1", "2", B32), ("6.1", "4", "16 MiB*")]
# the kernel's change between its means within two standard errors of its repeats, the model's
# change held inside that interval: 6.1's wsf 200 -> 10 (1.7 standard errors), and 6.12's
# zone_reclaim_mode, whose node reclaim under the multi-generational LRU reclaims nothing
# (replayed with the classic LRU's rules instead, the 20 default runs predicted -80.8% for 0 -> 1)
INSIDE = [("6.1", "2", B32, "vm.watermark_scale_factor=200", "vm.watermark_scale_factor=10"),
          ("6.12", "2", B32, "defaults", "vm.zone_reclaim_mode=1"),
          ("6.12", "2", B32, "vm.zone_reclaim_mode=1", "vm.zone_reclaim_mode=0")]

pred, recl = {}, {}
for line in out.splitlines():
    f = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(f) == 15 and f[0] in ("6.1", "6.12"):
        pred[tuple(f[:5])] = f
    elif len(f) == 6 and f[0] in ("6.1", "6.12"):
        recl[tuple(f[:3])] = f
def check(what, ok, text):
    print(("ok" if ok else "FAIL") + f": {' '.join(what)}: {text}")
    return not ok

bad = 0
for k in HELD:
    f = pred.get(k)
    if not f:
        bad += check(k, False, "no prediction")
        continue
    kfrom, kto, mfrom, mto = (float(f[i]) for i in (5, 6, 10, 11))
    kc, mc = (kto - kfrom) / kfrom, (mto - mfrom) / mfrom
    ok = (kc > 0) == (mc > 0) and abs(mc - kc) <= 0.3 * abs(kc)
    if k[4] == "vm.zone_reclaim_mode=1":
        ok = ok and abs(mto - kto) <= 0.3 * kto
    bad += check(k, ok, f"kernel {100 * kc:+.1f}%, model {100 * mc:+.1f}%, numa_miss under the new policy {kto:.0f} / {mto:.0f}")
for k in INSIDE:
    f = pred.get(k)
    if not f:
        bad += check(k, False, "no prediction")
        continue
    kfrom, kto, ratio, mfrom, mto = (float(f[i]) for i in (5, 6, 8, 10, 11))
    lo, hi = (float(x.rstrip("%")) / 100 for x in f[9].split(".."))
    mc = (mto - mfrom) / mfrom
    bad += check(k, abs(ratio) < 2 and lo <= mc <= hi,
                 f"kernel {100 * (kto - kfrom) / kfrom:+.1f}% ({ratio:+.1f} standard errors, interval {f[9]}), model {100 * mc:+.1f}%")
for k in RECLAIM:
    f = recl.get(k)
    if not f:
        bad += check(k, False, "no pgsteal_direct prediction")
        continue
    kd, md = float(f[3]), float(f[4])
    bad += check(k, abs(md - kd) <= 0.3 * kd, f"pgsteal_direct under mode 1, kernel {kd:.0f}, model {md:.0f}")
n = len(HELD) + len(INSIDE) + len(RECLAIM)
print(f"{n - bad} of {n} predictions within their bounds")
sys.exit(1 if bad else 0)
