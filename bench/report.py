#!/usr/bin/env python3
"""Turn the results of testenv/run-bench.sh into the table of ratios.

    bench/report.py RUN_DIR [--groups "walk smb work map"] [--markdown FILE]

RUN_DIR is /var/cache/richacl/bench/runs/<date-time>/ as run-bench.sh
leaves it: host-env.txt, guest/bench/ (walk.txt, walk-control.txt,
walk-setup.txt, smb.txt, work.txt, guest-env.txt, profiles/), map-insns.txt,
map-time.txt, profiles/map-100.txt.

Prints the table on stdout.  With --markdown, also writes the results page
(date, machine, tables, the fallback counts and, for every missed target,
the profiles that show where the time goes).

Ratios are medians of per-round ratios: the trees of the path walk are timed
in turns within each round, and the SMB shares take turns run by run, so a
round's figures were measured close together and their ratio is less noisy
than the ratio of two medians.
"""

import argparse
import os
import re
import statistics
import sys

WALK_TARGET_MODE5 = 1.05    # richacl 5 / mode-only at most (issue 14)
WALK_TARGET_MODE50 = 1.10   # richacl 50 / mode-only at most
WALK_TARGET_POSIX5 = 0.95   # richacl 5 / POSIX acl 5 at most
WALK_TARGET_POSIX = 1.00    # richacl 50 / POSIX acl 50 at most
SMB_TARGET = 1.00           # richacl / acl_xattr ops/s at least
LINEAR_TOLERANCE = 0.20     # marginal cost per entry may drift this much

WALK_PAIRS = [  # (richacl tree, baseline tree, target, what)
    ('rich5', 'mode', WALK_TARGET_MODE5, 'richacl 5 / mode only'),
    ('rich50', 'mode', WALK_TARGET_MODE50, 'richacl 50 / mode only'),
    ('rich5', 'posix5', WALK_TARGET_POSIX5, 'richacl 5 / POSIX acl 5'),
    ('rich50', 'posix50', WALK_TARGET_POSIX, 'richacl 50 / POSIX acl 50'),
    ('rich5g', 'mode', WALK_TARGET_MODE5, 'richacl 5, group entry / mode only'),
    ('rich5g', 'modeg', WALK_TARGET_MODE5,
     'richacl 5, group entry / mode only, granted by the group class'),
    ('rich5g', 'posix5', WALK_TARGET_POSIX5, 'richacl 5, group entry / POSIX acl 5'),
    ('rich5o', 'mode', WALK_TARGET_MODE5, 'richacl 5, owner entry / mode only'),
    ('rich5o', 'posix5', WALK_TARGET_POSIX5, 'richacl 5, owner entry / POSIX acl 5'),
    ('rich5d', 'mode', None, 'richacl 5, deny first (scan) / mode only'),
    ('rich5d', 'posix5', None, 'richacl 5, deny first (scan) / POSIX acl 5'),
    ('richmode', 'mode', None, 'richacl fs, no acl / mode only'),
    ('modeg', 'mode', None, 'mode only, group class / mode only, other class'),
    ('posix5', 'mode', None, 'POSIX acl 5 / mode only'),
    ('posix50', 'mode', None, 'POSIX acl 50 / mode only'),
]
SMB_WORKLOADS = [('flat', 'create'), ('flat', 'rename'), ('flat', 'delete'),
                 ('spread', 'create'), ('spread', 'rename'), ('spread', 'delete'),
                 ('acl', 'get'), ('acl', 'set')]
SMB_SHARES = ['richacl', 'aclxattr', 'nfs4acl']
SMB_PROFILE = {'flat': 'flat', 'spread': 'spread', 'acl': 'acl'}
WORK_ROWS = [  # (workload, phase, share suffix, what)
    ('browse', 'list', '', 'browse: listings'),
    ('browse', 'list+sd', '', 'browse: a listing + every descriptor'),
    ('browse', 'list', '-hide', 'browse, hide unreadable: listings'),
    ('browse', 'list+sd', '-hide', 'browse, hide unreadable: a listing + every descriptor'),
    ('copy', 'files', '', 'copy: files of 64 KiB + descriptor'),
    ('copy', 'files+sync', '', 'copy, then sync: files of 64 KiB + descriptor'),
    ('find', 'walk', '', 'find: local walk of the copied tree as nobody'),
]


def read_lines(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read().splitlines()
    except OSError:
        return None


def read_env(path):
    env = {}
    for line in read_lines(path) or []:
        key, _, value = line.partition(' ')
        env.setdefault(key, value)
    return env


def smb_figures(lines):
    """The `smb TAG WORKLOAD PHASE RUN OPS SECONDS OPS_PER_SECOND` lines of
    smb.txt and work.txt: ops/s and seconds by run, and ops, per (tag,
    workload, phase)."""
    rates, secs, ops = {}, {}, {}
    for line in lines:
        f = line.split()
        if f[:1] == ['smb'] and len(f) == 8:
            key, run = (f[1], f[2], f[3]), int(f[4])
            rates.setdefault(key, {})[run] = float(f[7])
            secs.setdefault(key, {})[run] = float(f[6])
            ops[key] = int(f[5])
    return rates, secs, ops


def median(values):
    return statistics.median(values) if values else None


def quartiles(values):
    """'(q1..q3)' of sorted values, or the range for fewer than 4"""
    if len(values) < 4:
        return f'({values[0]:.2f}..{values[-1]:.2f})'
    q = statistics.quantiles(values, n=4)
    return f'({q[0]:.2f}..{q[2]:.2f})'


def lower_quartile(values):
    """the first quartile of sorted values (the minimum for fewer than 4)"""
    if len(values) < 4:
        return values[0]
    return statistics.quantiles(values, n=4)[0]


def verdict_of(ratio, best, target, lower_is_better):
    """met; MISSED; or 'missed within noise' when the median misses but the
    better quartile (walk) or best run (smb) meets the target"""
    if (ratio <= target) if lower_is_better else (ratio >= target):
        return 'met'
    if (best <= target) if lower_is_better else (best >= target):
        return 'missed within noise'
    return 'MISSED'


def fmt(x, digits=2):
    return '-' if x is None else f'{x:.{digits}f}'


def paired_runs(rates, a, b, w, p):
    """(median, '(min..max)', max) of the per-run ratios of share a to share
    b for workload w, phase p; (None, '', None) if no run has both."""
    ra, rb = rates.get((a, w, p), {}), rates.get((b, w, p), {})
    per_run = sorted(ra[r] / rb[r] for r in sorted(set(ra) & set(rb)))
    if not per_run:
        return None, '', None
    return median(per_run), f'({fmt(per_run[0])}..{fmt(per_run[-1])})', per_run[-1]


class Report:
    def __init__(self, run, groups):
        self.run = run
        self.groups = groups
        self.guest = os.path.join(run, 'guest', 'bench')
        self.text = []      # the plain table (stdout)
        self.md = []        # the markdown page
        self.missed = []    # (what, explanation lines)
        self.problems = []
        # testenv/run-bench.sh --icount: guest times count instructions
        self.icount = 'icount' in read_env(os.path.join(run, 'host-env.txt'))

    def out(self, line=''):
        self.text.append(line)

    def mdl(self, line=''):
        self.md.append(line)

    def profile(self, name, lines=18):
        path = os.path.join(self.guest, 'profiles', name)
        if name.startswith('map-'):
            path = os.path.join(self.run, 'profiles', name)
        body = read_lines(path)
        if not body:
            return [f'(no profile {name})']
        return body[:lines]

    def profile_samples(self, name):
        body = read_lines(os.path.join(self.guest, 'profiles', name)) or []
        for line in body:
            m = re.match(r'# Samples: (\S+)', line)
            if m:
                return m.group(1)
        return '?'

    @staticmethod
    def symbol_share(lines, symbol):
        """percentage of samples in symbol, from a perf report -n --sort sym"""
        for line in lines or []:
            fields = line.split()
            if len(fields) >= 4 and fields[-1] == symbol and fields[0].endswith('%'):
                return float(fields[0].rstrip('%')), int(fields[1])
        return 0.0, 0

    # ------------------------------------------------------------ walk --
    def walk(self):
        lines = read_lines(os.path.join(self.guest, 'walk.txt'))
        if lines is None:
            self.problems.append('path walk: no results (walk.txt missing)')
            return
        rounds, counts, nocount = {}, {}, None
        for line in lines:
            f = line.split()
            if f[:1] == ['rounds']:
                rounds[(f[1], f[2])] = [float(x) for x in f[3:]]
            elif f[:1] == ['count']:
                counts[(f[1], f[2], f[3], f[4])] = float(f[5])
            elif f[:1] == ['nocount']:
                nocount = line[len('nocount '):]
        if not rounds:
            self.problems.append('path walk: walk.txt has no timings')
            return
        trees = []
        for (op, label) in rounds:
            if label not in trees:
                trees.append(label)
        nrounds = len(next(iter(rounds.values())))

        unit = 'insns' if self.icount else 'ns'
        self.out('(1) path walk: stat() and open()+close() at the end of a 10-deep path, '
                 f'{"guest instructions" if self.icount else "ns"} per operation, '
                 f'median of {nrounds} rounds')
        self.mdl('## 1. Path lookup and permission checks in the kernel')
        self.mdl()
        self.mdl('`stat()` and `open()`+`close()` of 8 files at the end of `d1/d2/.../d10/` '
                 '(lookups start at the top directory, so every component is on the '
                 'file system under test), as user bob. In the POSIX acls and in rich5 and '
                 'rich50 bob matches no entry but the last (`other::` / `everyone@`); in '
                 'rich5g a `group:staff` entry (second) grants him, and modeg is its '
                 'mode-bit counterpart (0750, group staff: the group class grants him, so '
                 'the check looks up his groups); in rich5o bob owns the tree and `owner@` '
                 '(first) grants him; in rich5d a deny entry '
                 'for another user comes before `everyone@`, so that the kernel scans the '
                 'whole acl for him (the worst case). '
                 f'Median of {nrounds} rounds; in each round every tree is timed for at '
                 'least the loop time, the trees taking turns.' +
                 (' The guest clock counts instructions (QEMU -icount shift=0): '
                  'a figure is the number of guest instructions per operation, '
                  'user and kernel, and a ratio compares the work done, not the '
                  'time a real processor would take.' if self.icount else ''))
        self.mdl()
        self.mdl(f'| tree | file system | acl on every directory and file | stat {unit}/op | open {unit}/op |')
        self.mdl('|---|---|---|---:|---:|')
        what = {'mode': ('plain ext4', 'none (mode bits)'),
                'modeg': ('plain ext4', 'none (mode bits 0750/0640, group staff)'),
                'rich5o': ('richacl ext4', 'richacl, 5 entries, owned by bob'),
                'posix5': ('plain ext4', 'POSIX, 5 entries'),
                'posix50': ('plain ext4', 'POSIX, 50 entries'),
                'richmode': ('richacl ext4', 'none (mode bits)'),
                'rich5': ('richacl ext4', 'richacl, 5 entries'),
                'rich50': ('richacl ext4', 'richacl, 50 entries'),
                'rich5g': ('richacl ext4', 'richacl, 5 entries, bob in group:staff'),
                'rich5d': ('richacl ext4', 'richacl, 5 entries, a deny before everyone@')}
        self.out(f'  {"tree":<10} {"stat " + unit:>10} {"open " + unit:>10}')
        for t in trees:
            s = median(rounds.get(('stat', t), []))
            o = median(rounds.get(('open', t), []))
            self.out(f'  {t:<10} {fmt(s, 0):>10} {fmt(o, 0):>10}')
            fs, acl = what.get(t, ('?', '?'))
            self.mdl(f'| {t} | {fs} | {acl} | {fmt(s, 0)} | {fmt(o, 0)} |')
        self.mdl()

        self.out()
        self.out(f'  {"ratio":<34} {"stat":>6} {"open":>6}  target')
        self.mdl('| ratio: median of per-round ratios (quartiles) | stat | open | target | verdict |')
        self.mdl('|---|---:|---:|---|---|')
        for rich, base, target, label in WALK_PAIRS:
            if rich not in trees or base not in trees:
                continue
            ratios, spread, low = {}, {}, {}
            for op in ('stat', 'open'):
                a, b = rounds.get((op, rich)), rounds.get((op, base))
                if a and b:
                    per_round = sorted(x / y for x, y in zip(a, b))
                    ratios[op] = median(per_round)
                    spread[op] = quartiles(per_round)
                    low[op] = lower_quartile(per_round)
            tgt = '' if target is None else f'<= {target:.2f}'
            verdict = ''
            if target is not None:
                words = []
                for op, r in ratios.items():
                    v = verdict_of(r, low[op], target, lower_is_better=True)
                    words.append(f'{op}: {v}')
                    if v != 'met':
                        self.walk_missed(label, op, rich, base, r, target, v)
                verdict = ', '.join(words)
            self.out(f'  {label:<34} {fmt(ratios.get("stat")):>6} {fmt(ratios.get("open")):>6}  '
                     f'{tgt} {verdict}')
            self.mdl(f'| {label} | {fmt(ratios.get("stat"))} {spread.get("stat", "")} | '
                     f'{fmt(ratios.get("open"))} {spread.get("open", "")} | {tgt} | {verdict} |')
        self.mdl()
        self.walk_fallbacks(trees, counts, nocount)

    def walk_missed(self, label, op, rich, base, ratio, target, verdict):
        expl = [f'{label}, {op}(): {ratio:.2f} (target {target:.2f}): {verdict}.',
                f'cpu-clock samples of the {op} loop (perf in the guest'
                f'{"; with instruction counting a sample falls every so many instructions" if self.icount else ""}); '
                f'{rich}: {self.profile_samples(f"walk-{rich}-{op}.run")} samples, '
                f'{base}: {self.profile_samples(f"walk-{base}-{op}.run")} samples.',
                '', f'{rich}:', '```']
        expl += self.profile(f'walk-{rich}-{op}.txt', 12)
        expl += ['```', '', f'{base}:', '```']
        expl += self.profile(f'walk-{base}-{op}.txt', 12)
        expl += ['```']
        self.missed.append((f'path walk: {label}, {op}', expl))

    def walk_fallbacks(self, trees, counts, nocount):
        self.mdl('### Falling out of RCU-walk')
        self.mdl()
        control = read_lines(os.path.join(self.guest, 'walk-control.txt')) or []
        ccounts = {}
        for line in control:
            f = line.split()
            if f[:1] == ['count']:
                ccounts[(f[1], f[2], f[3], f[4])] = float(f[5])
        if nocount is None and counts:
            self.mdl('Exact counts (x86 debug-register breakpoints on kernel functions, '
                     'this process only, see `bench/path_walk.c`), per operation, warm '
                     '(after the first one) / cold (the first one after dropping the caches). '
                     '`__d_lookup` is the ref-walk dcache lookup: 0 for a walk that never '
                     'leaves RCU mode.')
            self.mdl()
            self.mdl('| tree | op | __d_lookup warm | cold | try_to_unlazy(+_next) warm | '
                     'path_lookupat / path_openat warm |')
            self.mdl('|---|---|---:|---:|---:|---:|')
            self.out()
            self.out('  RCU-walk fallbacks per operation (warm): __d_lookup calls')
            allc = dict(counts)
            allc.update(ccounts)
            labels = trees + (['control'] if ccounts else [])
            for t in labels:
                for op in ('stat', 'open'):
                    def c(phase, sym):
                        return allc.get((op, t, phase, sym))
                    if c('warm', '__d_lookup') is None:
                        continue
                    unl = (c('warm', 'try_to_unlazy') or 0) + (c('warm', 'try_to_unlazy_next') or 0)
                    walks = c('warm', 'path_lookupat' if op == 'stat' else 'path_openat')
                    self.mdl(f'| {t} | {op} | {fmt(c("warm", "__d_lookup"), 3)} | '
                             f'{fmt(c("cold", "__d_lookup"), 0)} | {fmt(unl, 3)} | {fmt(walks, 3)} |')
                    self.out(f'  {t:<10} {op:<5} {fmt(c("warm", "__d_lookup"), 3)}')
            self.mdl()
            return
        self.out()
        self.out(f'  RCU-walk fallbacks: no exact counter ({nocount}); sampled instead')
        self.mdl('The exact counter of `bench/path_walk.c` (debug-register breakpoints on '
                 '`__d_lookup`, `try_to_unlazy`, ...) did not run: '
                 f'"{nocount}". The guest kernel has no ftrace and no kprobes, and x86 '
                 'refuses execute breakpoints in kernel text without CONFIG_KPROBES.')
        self.mdl()
        self.mdl('Sampled instead: the share of cpu-clock samples in `__d_lookup`, the dcache '
                 'lookup that only ref-walk uses (RCU-walk uses `__d_lookup_rcu`), in a loop of '
                 'the operation. The control tree lives on the guest\'s root (overlayfs over '
                 '9p, whose `d_revalidate` refuses RCU mode), so every lookup there falls out '
                 'of RCU-walk at the first component and walks the other nine in ref-walk.')
        self.mdl()
        self.mdl('| tree | op | samples | in __d_lookup | in __d_lookup_rcu |')
        self.mdl('|---|---|---:|---:|---:|')
        for t in trees + ['control']:
            for op in ('stat', 'open'):
                prof = read_lines(os.path.join(self.guest, 'profiles', f'walk-{t}-{op}.txt'))
                if prof is None:
                    continue
                ref, nref = self.symbol_share(prof, '__d_lookup')
                rcu, nrcu = self.symbol_share(prof, '__d_lookup_rcu')
                n = self.profile_samples(f'walk-{t}-{op}.run')
                self.mdl(f'| {t} | {op} | {n} | {nref} ({ref:.1f}%) | {nrcu} ({rcu:.1f}%) |')
                self.out(f'  {t:<10} {op:<5} __d_lookup {nref} samples ({ref:.1f}%), '
                         f'__d_lookup_rcu {nrcu} ({rcu:.1f}%) of {n}')
        self.mdl()

    # ------------------------------------------------------------- smb --
    def smb(self, group='smb'):
        """The smb group (smbd on passdb) or the smbwb group (the same with
        winbindd allocating the ids)"""
        lines = read_lines(os.path.join(self.guest, f'{group}.txt'))
        if lines is None:
            self.problems.append(f'{group}: no results ({group}.txt missing)')
            return
        rates = smb_figures(lines)[0]
        aces = {f[1]: f[2] for f in map(str.split, lines) if f[:1] == ['aces']}
        failed = [line for line in lines if line.split()[:1] == ['share']]
        self.problems += [f'{group}: {x}' for x in failed]
        shares = [s for s in SMB_SHARES if any(k[0] == s for k in rates)]
        if not rates:
            self.problems.append(f'{group}: {group}.txt has no figures')
            return
        nruns = max(len(v) for v in rates.values())
        self.out()
        if group == 'smbwb':
            self.out(f'(2b) SMB metadata operations through smbd with winbindd, ops/s, '
                     f'median of {nruns} runs')
            self.mdl('## 2b. SMB metadata operations through smbd, ids from winbindd')
            self.mdl()
            self.mdl('The workloads of section 2, in the same boot, against the same three '
                     'shares served by smbd with winbindd running and `idmap config * : '
                     'backend = tdb` (testenv/smb/server.sh --identity winbind, the second '
                     'identity setup of the SMB tests): every SID, the well-known ones '
                     'included, gets its id from winbindd, as on a domain member.')
            self.mdl()
        else:
            self.out(f'(2) SMB metadata operations through smbd, ops/s, median of {nruns} runs')
            self.mdl('## 2. SMB metadata operations through smbd')
            self.mdl()
        self.mdl('One client process (`bench/smb/smb_meta.c`, libsmbclient, SMB3) per share '
                 'and run, with one persistent connection, against the guest\'s smbd on '
                 'loopback; the shares take turns run by run. `flat`: the files in one '
                 'directory; `spread`: over 100 directories. create = open(O_CREAT|O_EXCL) + '
                 'write 4 KiB + close. acl: get / set of a 10-entry descriptor '
                 '(libsmbclient\'s `system.nt_sec_desc.*`; a set is a get plus '
                 'open + SET_INFO + close). ACEs read back: ' +
                 ', '.join(f'{s} {aces.get(s, "?")}' for s in shares) + '.')
        self.mdl()
        head = ' | '.join(shares)
        self.mdl(f'| workload (ops/s) | {head} | richacl / acl_xattr (min..max of runs) | '
                 'richacl / nfs4acl_xattr | verdict |')
        self.mdl('|---|' + '---:|' * len(shares) + '---:|---:|---|')
        self.out(f'  {"workload":<16} ' + ' '.join(f'{s:>9}' for s in shares) +
                 f' {"rich/aclx":>9} {"rich/nfs4":>9}  target >= {SMB_TARGET:.2f}')
        for w, p in SMB_WORKLOADS:
            med = {s: median(list(rates.get((s, w, p), {}).values())) for s in shares}
            if all(v is None for v in med.values()):
                continue

            r_acl, s_acl, best = paired_runs(rates, 'richacl', 'aclxattr', w, p)
            r_nfs, s_nfs, _ = paired_runs(rates, 'richacl', 'nfs4acl', w, p)
            verdict = '' if r_acl is None else verdict_of(r_acl, best, SMB_TARGET,
                                                         lower_is_better=False)
            name = f'{w} {p}'
            self.out(f'  {name:<16} ' + ' '.join(f'{fmt(med[s], 1):>9}' for s in shares) +
                     f' {fmt(r_acl):>9} {fmt(r_nfs):>9}  {verdict}')
            self.mdl(f'| {name} | ' + ' | '.join(fmt(med[s], 1) for s in shares) +
                     f' | {fmt(r_acl)} {s_acl} | {fmt(r_nfs)} {s_nfs} | {verdict} |')
            if verdict not in ('', 'met'):
                self.smb_missed(group, w, p, r_acl, verdict)
        self.mdl()

    def smb_missed(self, group, w, p, ratio, verdict):
        pw = SMB_PROFILE[w]
        expl = [f'{w} {p}: richacl / acl_xattr = {ratio:.2f} (target {SMB_TARGET:.2f}): '
                f'{verdict}.',
                f'cpu-clock samples of the whole guest during a shorter `{pw}` run per share '
                '(perf record -a); the smbd part by shared object and symbol '
                '(Debian\'s Samba libraries carry no symbols for their internal functions).',
                '', 'richacl:', '```']
        expl += self.profile(f'{group}-richacl-{pw}.txt', 40)
        expl += ['```', '', 'acl_xattr:', '```']
        expl += self.profile(f'{group}-aclxattr-{pw}.txt', 40)
        expl += ['```']
        for share, label in (('richacl', 'richacl'), ('aclxattr', 'acl_xattr')):
            body = self.profile(f'{group}-{share}-{w}.syscalls', 40)
            if body and not body[0].startswith('(no profile'):
                if share == 'richacl':
                    expl += ['', f'System calls of smbd during a short `{w}` run (strace -f '
                             'of smbd; the client\'s result lines first):']
                expl += ['', f'{label}:', '```'] + body + ['```']
        self.missed.append((f'{group}: {w} {p}', expl))

    # ------------------------------------------------------------ work --
    def work(self):
        lines = read_lines(os.path.join(self.guest, 'work.txt'))
        if lines is None:
            self.problems.append('work: no results (work.txt missing)')
            return
        rates, secs, ops = smb_figures(lines)
        # the copy with the write-back that followed it, run by run
        for (share, w, p), by_run in list(secs.items()):
            if (w, p) != ('copy', 'files'):
                continue
            sync = secs.get((share, 'copy', 'sync'), {})
            n = ops[(share, w, p)]
            both = {r: n / (t + sync[r]) for r, t in by_run.items() if r in sync}
            if both:
                rates[(share, 'copy', 'files+sync')] = both
                ops[(share, 'copy', 'files+sync')] = n
        # every listing of a share with hide unreadable leaves out a tenth
        for share in SMB_SHARES:
            plain = ops.get((share, 'browse', 'list+sd'))
            hidden = ops.get((share + '-hide', 'browse', 'list+sd'))
            if plain is not None and hidden is not None and hidden != plain - plain // 10:
                self.problems.append(f'work: {share}-hide lists {hidden} entries, '
                                     f'{share} {plain}: hide unreadable did not hide a tenth')
        if not rates:
            self.problems.append('work: work.txt has no figures')
            return
        nruns = max(len(v) for v in rates.values())
        self.out()
        self.out(f'(4) workloads, ops/s, median of {nruns} runs')
        self.mdl('## 4. Workloads that users run')
        self.mdl()
        self.mdl('The same three shares, and copies of them with `hide unreadable = yes`, '
                 'in the same boot, after an untimed warm-up; the shares take turns run '
                 'by run, with a `sync` after every client so that no phase pays for '
                 'another\'s write-back. `bench/smb/smb_meta.c`: **browse** lists a '
                 'folder of files that carry the 10-entry descriptor of the acl workload '
                 '(every tenth one denies alice, the client, read access): 20 listings '
                 'in a row, then one listing with every descriptor read (open + '
                 'QUERY_INFO(security) + close; libsmbclient cannot ask for MxAc, the '
                 'open\'s access check is the same work; Explorer itself reads a '
                 'descriptor only for the security tab); ops = entries listed. With '
                 'hide unreadable smbd checks every entry\'s descriptor while listing and '
                 'leaves the tenth out (so a hidden listing lists nine tenths of the '
                 'entries it checked). **copy** is a robocopy /COPYALL-style copy: '
                 'directories and files of 64 KiB, each created, written and given the '
                 'descriptor; ops = files; "then sync" adds the `sync` that follows it. '
                 '**find** walks the tree the last copy left, locally in the guest, as '
                 'the unprivileged user nobody (`find -printf %m`): the time of 6 walks '
                 'in one process minus that of 1 in another; ops = entries walked. '
                 'Looking up and stat\'ing an entry checks only the directories\' '
                 'acls (search permission), never the files\'; on nfs4acl_xattr the '
                 'kernel checks mode bits only (it never reads `user.nfs4acl`). Caches '
                 'are warm. No target was set for these; the ratios are reported.')
        self.mdl()
        self.mdl('| workload (ops/s) | richacl | acl_xattr | nfs4acl_xattr | ops per run '
                 '(richacl, acl_xattr, nfs4acl) | richacl / acl_xattr (min..max of runs) | '
                 'richacl / nfs4acl_xattr |')
        self.mdl('|---|---:|---:|---:|---|---:|---:|')
        self.out(f'  {"workload":<48} {"richacl":>9} {"aclxattr":>9} {"nfs4acl":>9} '
                 f'{"rich/aclx":>9} {"rich/nfs4":>9}')
        for w, p, sfx, what in WORK_ROWS:
            shares = [s + sfx for s in SMB_SHARES]
            med = [median(list(rates.get((s, w, p), {}).values())) for s in shares]
            if all(v is None for v in med):
                continue
            n = ', '.join(str(ops.get((s, w, p), '-')) for s in shares)
            r_acl, s_acl, _ = paired_runs(rates, shares[0], shares[1], w, p)
            r_nfs, s_nfs, _ = paired_runs(rates, shares[0], shares[2], w, p)
            self.out(f'  {what:<48} ' + ' '.join(f'{fmt(m, 1):>9}' for m in med) +
                     f' {fmt(r_acl):>9} {fmt(r_nfs):>9}')
            self.mdl(f'| {what} | ' + ' | '.join(fmt(m, 1) for m in med) +
                     f' | {n} | {fmt(r_acl)} {s_acl} | {fmt(r_nfs)} {s_nfs} |')
        self.mdl()

    # ------------------------------------------------------------- nfs --
    def nfs(self):
        lines = read_lines(os.path.join(self.guest, 'nfs.txt'))
        if lines is None:
            self.problems.append('nfs: no results (nfs.txt missing)')
            return
        rows = []
        for line in lines:
            f = line.split()
            if f[:1] == ['nfs'] and len(f) == 18:
                rows.append((f[1], dict(zip(f[2::2], f[3::2]))))
        want = {'rich5': 5, 'rich50': 50}
        for label, v in rows:
            if label in want and int(v['entries']) != want[label]:
                self.problems.append(f'nfs: {label} came back with {v["entries"]} entries, '
                                     f'{want[label]} were set')
        if not rows:
            self.problems.append('nfs: nfs.txt has no figures')
            return
        self.out()
        self.out('(5) NFSv4 GETATTR of the acl against GETATTR of the mode (knfsd)')
        self.mdl('## 5. NFSv4: GETATTR of the acl against GETATTR of the mode')
        self.mdl()
        self.mdl("knfsd in the guest exports the richacl file system; `bench/nfs_getattr.c` "
                 "sends NFSv4.0 compounds over loopback TCP itself (the kernel's NFS client "
                 "caches acls): PUTFH + GETATTR {mode} and PUTFH + GETATTR {acl}, in loops "
                 "that take turns per file and round. **mode**: a file without an acl "
                 "(knfsd shows the acl of its mode); **rich5**: a 5-entry richacl; "
                 "**rich5m**: the same after `chmod 640` (masked: knfsd rewrites it with "
                 "richacl_apply_masks() for every GETATTR); **rich50**: 50 entries. "
                 "Ratio = acl / mode per round: median, quartiles, extremes.")
        self.mdl()
        self.mdl('| file | acl entries sent | GETATTR mode (us) | GETATTR acl (us) | '
                 'acl / mode (q1..q3, min..max) |')
        self.mdl('|---|---:|---:|---:|---|')
        self.out(f'  {"file":<8} {"entries":>7} {"mode us":>9} {"acl us":>9} {"acl/mode":>9}')
        for label, v in rows:
            m, a = float(v['mode_ns']) / 1000, float(v['acl_ns']) / 1000
            self.out(f'  {label:<8} {v["entries"]:>7} {m:>9.1f} {a:>9.1f} {v["ratio"]:>9}')
            self.mdl(f'| {label} | {v["entries"]} | {m:.1f} | {a:.1f} | {v["ratio"]} '
                     f'({v["q1"]}..{v["q3"]}, {v["min"]}..{v["max"]}) |')
        self.mdl()

    # ------------------------------------------------------------- map --
    def map(self):
        lines = read_lines(os.path.join(self.run, 'map-insns.txt'))
        if not lines:
            self.problems.append('map: no results (map-insns.txt missing)')
            return
        rows = []
        for line in lines:
            f = line.split()
            if f[:1] == ['insns'] and len(f) == 5:
                n, trips, set_ir, get_ir = int(f[1]), int(f[2]), int(f[3]), int(f[4])
                rows.append((n, set_ir / trips, get_ir / trips))
        if not rows:
            self.problems.append('map: map-insns.txt has no figures')
            return
        self.out()
        self.out('(3) mapping library: instructions per round trip (callgrind)')
        self.mdl('## 3. The mapping library')
        self.mdl()
        self.mdl('Instructions (callgrind, `Ir`) per descriptor carried through '
                 '`map_roundtrip --insns`: SET = `richacl_from_nt_sd` + `richacl_to_xattr`, '
                 'GET = `richacl_from_xattr` + `richacl_to_nt_sd`, for a directory descriptor '
                 'of N ACEs in map_roundtrip\'s mix (owner full control, denies, inheritable '
                 'group entries, Everyone, CREATOR OWNER). "per added entry" is the '
                 'slope between this size and the previous one.')
        self.mdl()
        self.mdl('| ACEs | SET Ir | GET Ir | total Ir | Ir per entry | Ir per added entry |')
        self.mdl('|---:|---:|---:|---:|---:|---:|')
        self.out(f'  {"ACEs":>5} {"SET":>10} {"GET":>10} {"total":>10} {"per entry":>10} '
                 f'{"per added":>10}')
        prev, slopes = None, []
        for n, s, g in rows:
            total = s + g
            slope = None
            if prev:
                slope = (total - prev[1]) / (n - prev[0])
                slopes.append(slope)
            self.out(f'  {n:>5} {s:>10.0f} {g:>10.0f} {total:>10.0f} {total / n:>10.0f} '
                     f'{fmt(slope, 0):>10}')
            self.mdl(f'| {n} | {s:.0f} | {g:.0f} | {total:.0f} | {total / n:.0f} | '
                     f'{fmt(slope, 0)} |')
            prev = (n, total)
        self.mdl()
        # linear: the slope settles (fixed costs dominate the small sizes)
        tail = slopes[-2:]
        linear = len(tail) == 2 and abs(tail[1] - tail[0]) <= LINEAR_TOLERANCE * tail[0]
        verdict = 'linear' if linear else 'NOT linear'
        msg = (f'growth: {verdict}: the cost per added entry is {fmt(tail[0], 0)} and then '
               f'{fmt(tail[-1], 0)} instructions over the last two steps '
               f'(tolerance {LINEAR_TOLERANCE:.0%})') if tail else 'growth: too few sizes'
        self.out('  ' + msg)
        self.mdl(msg[0].upper() + msg[1:] + '.')
        self.mdl()
        if not linear:
            self.missed.append(('map: linear growth', [msg, '', '```'] +
                               self.profile('map-100.txt', 40) + ['```']))
        timing = read_lines(os.path.join(self.run, 'map-time.txt'))
        if timing:
            self.mdl('Wall-clock rate on the host (`map_roundtrip`, gcc -O2):')
            self.mdl()
            self.mdl('```')
            self.md.extend(timing)
            self.mdl('```')
            self.mdl()

    # ------------------------------------------------------------ page --
    def header(self):
        host = read_env(os.path.join(self.run, 'host-env.txt'))
        guest = read_env(os.path.join(self.guest, 'guest-env.txt'))
        self.date = host.get('date', '?')
        lines = [f'date: {self.date}',
                 f'host: {host.get("cpu", "?")}, {host.get("cores", "?")} cores, '
                 f'{host.get("memory_gib", "?")} GiB, Linux {host.get("host", "?")}',
                 f'load average: {host.get("load_start", "?")} at the start, '
                 f'{host.get("load_end", "?")} at the end (the machine is shared)',
                 f'guest: {host.get("qemu", "?")}, {host.get("guest_accel", "?")}, '
                 f'{guest.get("cpus", "?")} vCPU, kernel {guest.get("kernel", "?")}',
                 f'guest kernel image: {host.get("kernel", "?")}',
                 f'Samba {host.get("samba", "?")}, module {host.get("module", "?")}',
                 f'gcc {host.get("gcc", "?")}, {host.get("valgrind", "?")}']
        if self.icount:
            lines.append(f'guest clock: QEMU instruction counting (-icount shift={host["icount"]}): '
                         'guest figures count instructions, not time')
        if host.get('quick') == '1':
            lines.append('QUICK RUN: short loops, the figures mean little')
        return lines

    def build(self):
        env = self.header()
        self.out('richacl benchmarks (testenv/run-bench.sh)')
        for line in env:
            self.out('  ' + line)
        self.out()
        self.mdl(f'# Benchmark results, {self.date.split()[0]}')
        self.mdl()
        self.mdl('Written by `testenv/run-bench.sh` (see `bench/README.md`); every figure is '
                 'the median of repeated runs, every baseline comes from the same guest boot. '
                 'The guest runs under QEMU with TCG: instructions are emulated, so the '
                 'absolute times are many times those of real hardware and only the ratios '
                 'mean something.')
        self.mdl()
        self.mdl('```')
        self.md.extend(env)
        self.mdl('```')
        self.mdl()
        if 'walk' in self.groups:
            self.walk()
        if 'smb' in self.groups:
            self.smb()
        if 'smbwb' in self.groups:
            self.smb('smbwb')
        if 'work' in self.groups:
            self.work()
        if 'map' in self.groups:
            self.map()
        if 'nfs' in self.groups:
            self.nfs()
        self.out()
        self.mdl('## Missed targets and where the time goes')
        self.mdl()
        if not self.missed:
            self.out('every target met')
            self.mdl('None: every target was met.')
        for what, expl in self.missed:
            self.out(f'MISSED {what}')
            self.mdl(f'### {what}')
            self.mdl()
            self.md.extend(expl)
            self.mdl()
        for p in self.problems:
            self.out(f'PROBLEM {p}')
        if self.problems:
            self.mdl('## Problems of this run')
            self.mdl()
            self.md.extend(f'- {p}' for p in self.problems)
            self.mdl()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('run')
    ap.add_argument('--groups', default='walk smb work map nfs')
    ap.add_argument('--markdown')
    args = ap.parse_args()
    r = Report(args.run, args.groups.split())
    r.build()
    print('\n'.join(r.text))
    if args.markdown:
        with open(args.markdown, 'w', encoding='utf-8') as f:
            f.write('\n'.join(r.md) + '\n')
        print(f'\nwrote {args.markdown}')
    return 1 if r.problems else 0


if __name__ == '__main__':
    sys.exit(main())
