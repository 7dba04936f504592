#!/usr/bin/python3
"""Summarise valgrind memcheck logs of smbd (guest.sh valgrind).

   vgsummary.py DIR     (DIR holds the vg.<pid> logs, one per process)

Counts errors and leaks per process and finds the ones attributable to the
module: an error or a definitely / indirectly lost block whose stack has a
frame in vfs_richacl or the mapping library compiled into it (function
names richacl_*, richace_*, nt_sd_*, nt_sid_*, nt_acl_*, or the file names
vfs_richacl.c, map.c, ntsd.c, sid.c, xattr.c, ... of richacl.so).  Prints
those records in full, a summary line per process, and
"valgrind: N passed, N failed" where failed = records attributable to the
module (passed = processes analysed without such a record).
"""

import glob
import os
import re
import sys

MODULE = re.compile(r"(richacl\.so|vfs_richacl|\brichac[le]_\w+|\bnt_(sd|sid|acl|ace|map)\w*)")


def records(text):
    """Split a valgrind log into records (blank-line separated '==pid==' blocks)."""
    out, cur = [], []
    for line in text.splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if body.strip() == "":
            if cur:
                out.append(cur)
                cur = []
        else:
            cur.append(body)
    if cur:
        out.append(cur)
    return out


def main():
    d = sys.argv[1]
    logs = sorted(glob.glob(os.path.join(d, "vg.*")))
    if not logs:
        print("valgrind: no valgrind logs found")
        print("valgrind: 0 passed, 1 failed")
        return 1
    bad = []
    passed = 0
    tot_err = tot_def = tot_ind = 0
    for path in logs:
        text = open(path, errors="replace").read()
        errs = re.findall(r"ERROR SUMMARY: (\d+) errors", text)
        deflost = re.findall(r"definitely lost: ([\d,]+) bytes", text)
        indlost = re.findall(r"indirectly lost: ([\d,]+) bytes", text)
        e = int(errs[-1]) if errs else 0
        dl = int(deflost[-1].replace(",", "")) if deflost else 0
        il = int(indlost[-1].replace(",", "")) if indlost else 0
        tot_err += e
        tot_def += dl
        tot_ind += il
        mine = []
        for rec in records(text):
            head = rec[0]
            if not (re.search(r"(Invalid|uninitialised|Conditional jump|Mismatched|"
                              r"definitely lost|indirectly lost|overlap|Syscall param)", head)):
                continue
            if any(MODULE.search(line) for line in rec):
                mine.append(rec)
        print(f"valgrind: {os.path.basename(path)}: {e} errors, {dl} bytes definitely lost, "
              f"{il} bytes indirectly lost, {len(mine)} records attributable to the module")
        if mine:
            bad.extend(mine)
        else:
            passed += 1
    for rec in bad[:20]:
        print("FAIL valgrind record in the module:")
        print("    " + "\n    ".join(rec[:25]))
    print(f"valgrind: total over {len(logs)} processes: {tot_err} errors, {tot_def} bytes "
          f"definitely lost, {tot_ind} bytes indirectly lost (smbd and libraries); "
          f"{len(bad)} attributable to vfs_richacl")
    print(f"valgrind: {passed} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
