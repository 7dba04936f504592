#!/usr/bin/python3
"""Count smbtorture results (subunit v1) per share and suite.

usage: torture-summary.py RESULTS_DIR KNOWNFAIL [--setup NAME] [--markdown FILE]
                          [--title TEXT]

RESULTS_DIR is the "torture" directory written by testenv/smb/guest-tests.sh:
RESULTS_DIR/SHARE/SUITE.subunit, .rc and .stderr.  KNOWNFAIL is
testenv/smb/torture-knownfail.txt: lines "SHARE TEST REASON", SHARE being a
share name or "*", TEST an exact test name or a prefix ending in "*"; the
reason is mandatory.  '#' starts a comment.  SHARE may also be
"share@setup": the entry then applies only to the results of that identity
setup (--setup NAME, e.g. winbind: RESULTS_DIR holds the runs against the
server with winbindd), whose shares are reported as "share@NAME".

Prints one line per failure (known or not) and per suite, the table of pass
counts, and finally "torture: N passed, N failed", where failed counts only
the failures that are not in the known-fail list (plus suites that did not
run).  With --markdown, the table is also written to FILE.  Exit status 1 if
anything failed unexpectedly or the known-fail list is malformed.
"""

import argparse
import os
import sys


def parse_knownfail(path):
    entries = []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise ValueError(f"{path}:{n}: want 'SHARE TEST REASON', got '{line}'")
            entries.append((parts[0], parts[1], parts[2], n))
    return entries


def known(entries, share, test):
    """The reason if test on share ("name" or "name@setup") is a known
    failure, else None."""
    for s, pattern, reason, _ in entries:
        if s not in ("*", share, share.split("@", 1)[0]):
            continue
        if pattern.endswith("*"):
            if test.startswith(pattern[:-1]):
                return reason
        elif test == pattern:
            return reason
    return None


def parse_subunit(path):
    """Return ({test: outcome}, details) from a subunit v1 stream."""
    outcomes, details, started = {}, {}, []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except FileNotFoundError:
        return {}, {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        word, _, rest = line.partition(":")
        rest = rest.strip()
        word = word.strip()
        if word in ("test", "testing"):
            started.append(rest)
            continue
        kinds = {"success": "pass", "successful": "pass", "failure": "fail", "fail": "fail",
                 "error": "error", "skip": "skip", "xfail": "xfail", "uxsuccess": "fail"}
        if word not in kinds:
            continue
        name, text = rest, []
        if rest.endswith("["):
            name = rest[:-1].strip()
            while i < len(lines) and lines[i] != "]":
                text.append(lines[i])
                i += 1
            i += 1
        outcomes[name] = kinds[word]
        if text:
            details[name] = text
    for name in started:
        if name not in outcomes:
            outcomes[name] = "error"
            details[name] = ["started but never finished (crash or timeout)"]
    return outcomes, details


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("knownfail")
    ap.add_argument("--markdown")
    ap.add_argument("--title", default="")
    ap.add_argument("--setup", default="")
    args = ap.parse_args()

    try:
        kf = parse_knownfail(args.knownfail)
    except (OSError, ValueError) as e:
        print(f"FAIL torture known-fail list: {e}")
        print("torture: 0 passed, 1 failed")
        return 1

    shares = sorted(d for d in os.listdir(args.results)
                    if os.path.isdir(os.path.join(args.results, d)))
    # Column order: richacl first, then the others.
    shares.sort(key=lambda s: (s != "richacl", s))
    suites = []
    table = {}
    passed = failed = 0
    used_known = set()
    if args.setup:
        shares = [f"{s}@{args.setup}" for s in shares]
    for share in shares:
        sdir = os.path.join(args.results, share.split("@", 1)[0])
        for fn in sorted(os.listdir(sdir)):
            if not fn.endswith(".subunit"):
                continue
            suite = fn[:-len(".subunit")]
            if suite not in suites:
                suites.append(suite)
            outcomes, details = parse_subunit(os.path.join(sdir, fn))
            rc = None
            try:
                rc = int(open(os.path.join(sdir, suite + ".rc")).read().strip())
            except (OSError, ValueError):
                pass
            p = f = k = s = 0
            for test, outcome in sorted(outcomes.items()):
                if outcome == "pass":
                    p += 1
                    reason = known(kf, share, test)
                    if reason:
                        print(f"note {share} {test}: passes but is in the known-fail list "
                              f"({reason})")
                elif outcome in ("fail", "error"):
                    f += 1
                    reason = known(kf, share, test)
                    if reason:
                        k += 1
                        used_known.add((share, test))
                        print(f"known-fail {share} {test}: {reason}")
                    else:
                        failed += 1
                        why = " / ".join(x.strip() for x in details.get(test, [])[:3] if x.strip())
                        print(f"FAIL torture {share} {test}: {outcome} {why[:300]}")
                else:
                    s += 1
            passed += p
            note = ""
            if not outcomes:
                failed += 1
                err = ""
                try:
                    err = open(os.path.join(sdir, suite + ".stderr"), errors="replace") \
                        .read().strip().splitlines()[-1:]
                    err = err[0] if err else ""
                except OSError:
                    pass
                note = f"did not run (exit {rc}) {err}"
                print(f"FAIL torture {share} {suite}: {note}")
            elif rc == 124:
                failed += 1
                note = "timed out"
                print(f"FAIL torture {share} {suite}: timed out")
            table[(share, suite)] = (p, f, k, s, note)
            print(f"suite {share} {suite}: {p} passed, {f} failed ({k} known), {s} skipped"
                  + (f"; {note}" if note else ""))

    order = ["smb2.acls", "smb2.create", "smb2.rename", "smb2.delete-on-close-perms",
             "smb2.sdread", "smb2.maximum_allowed", "base.delete", "raw.acls"]
    suites.sort(key=lambda x: (order.index(x) if x in order else len(order), x))
    header = "| suite | " + " | ".join(shares) + " |"
    sep = "|---|" + "---|" * len(shares)
    rows = [header, sep]
    for suite in suites:
        cells = []
        for share in shares:
            if (share, suite) not in table:
                cells.append("-")
                continue
            p, f, k, s, note = table[(share, suite)]
            cell = f"{p}/{f}"
            if k:
                cell += f" ({k} known)"
            if note:
                cell += f" ({note})"
            cells.append(cell)
        rows.append(f"| {suite} | " + " | ".join(cells) + " |")
    print("\n".join(rows))
    if args.markdown:
        with open(args.markdown, "w") as out:
            if args.title:
                out.write(args.title.rstrip() + "\n\n")
            out.write("\n".join(rows) + "\n")
    print(f"torture: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
