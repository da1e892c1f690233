# check-csv.py FILE - reads pagesim diff --format csv with Python's csv module and
# prints what the case checks; a second table (a label holding a comma) must
# come back whole.
import csv, os, subprocess, sys

rows = list(csv.DictReader(open(sys.argv[1], newline="")))
want = "counter,column,n,mean,stddev,change_pct,p,significant,inputs,trace,policy,pagesim".split(",")
assert list(rows[0].keys()) == want, rows[0].keys()
cols = []
for r in rows:
    if r["column"] not in cols:
        cols.append(r["column"])
print("rows %d, columns %s" % (len(rows), " ".join(cols)))
for r in rows:
    if r["column"] == "wsf=200":
        assert int(r["n"]) == 7
        print("%s %s p %.3g significant %s" % (r["counter"], r["column"], float(r["p"]), r["significant"]))
src = os.path.dirname(os.path.abspath(__file__))
out = subprocess.run([os.environ["PAGESIM"], "diff", "--format", "csv", "cells/a.vmstat",
                      "cells/a.vmstat,cells/b.vmstat"], cwd=src, capture_output=True, text=True, check=True).stdout
rows = list(csv.DictReader(out.splitlines()))
print("quoted: %s" % rows[1]["column"])
