/*
 * path_walk.c - what the permission checks of a path lookup cost: stat()
 * and open()+close() of files at the end of a deep directory path, for
 * several directory trees that differ only in their acls (mode bits only,
 * POSIX acls, richacls of different sizes).  Runs inside the QEMU guest as
 * root; it drops to an unprivileged user before the first lookup.
 *
 *     path_walk [options] LABEL=DIR ...
 *
 * Each DIR holds d1/d2/.../dDEPTH/f0 ... f(FILES-1) (bench/guest-bench.sh
 * makes them).  The lookups start at DIR (fstatat()/openat() on an O_PATH
 * descriptor), so every permission check of the walk is on DIR's file system:
 * DIR and d1 .. dDEPTH get a MAY_EXEC check, the file a MAY_READ check for
 * open().
 *
 * Timing: ROUNDS rounds; in each round every tree is timed for each operation
 * in a loop of at least SECONDS; the trees take turns (the starting tree
 * rotates from round to round), so that a slow phase of the machine hits all
 * of them alike.  The table gives the median ns per operation and the
 * fastest and slowest round.
 *
 * Counting RCU-walk fallbacks: the kernel has no counter for them.  x86
 * debug registers can count the executions of an instruction: a perf event
 * of type PERF_TYPE_BREAKPOINT / HW_BREAKPOINT_X on the first byte of a
 * kernel function counts its calls exactly, in this process only, and only
 * while this program enables it.  Counted (addresses from /proc/kallsyms):
 *
 *   __d_lookup          the dcache lookup of ref-walk mode (RCU-walk uses
 *                       __d_lookup_rcu): one per component walked after the
 *                       walk fell out of RCU mode.  0 for a pure RCU walk.
 *   try_to_unlazy,      leave RCU mode: a walk calls one of them once, either
 *   try_to_unlazy_next  early (a permission check under MAY_NOT_BLOCK said
 *                       -ECHILD, a d_revalidate needs to sleep) or at its end
 *                       (complete_walk() takes the references).  Their sum is
 *                       1 per operation when the counters work.
 *   path_lookupat,      one per walk; a second one is a full restart in
 *   path_openat         ref-walk mode after the switch itself failed.
 *
 * The first operation on each tree is counted apart ("cold"); with the caches
 * dropped before the run it must fall out of RCU mode.  A tree on the guest's
 * root (overlayfs over 9p, whose d_revalidate refuses RCU mode) is a positive
 * control that falls out on every lookup.  The counters slow the loop down a
 * lot (a debug exception per hit), so they are never on while timing.
 *
 * The kernel refuses execute breakpoints in kernel text unless it was built
 * with CONFIG_KPROBES (arch/x86/kernel/hw_breakpoint.c); then the counting is
 * skipped with a "nocount" line, and bench/guest-bench.sh falls back to
 * sampling (perf record in --profile mode, see bench/README.md).
 *
 * Options:
 *   --rounds N     timing rounds (default 9)
 *   --seconds S    minimum length of one timed loop (default 0.3)
 *   --depth D      directories below DIR (default 10)
 *   --files N      files per tree, used in turn (default 8)
 *   --count N      operations per counting pass (default 1000; 0: no counting)
 *   --user NAME    user to run the lookups as (default nobody); its groups
 *                  from the group database
 *   --cpu N        pin to CPU N (default: no pinning)
 *   --profile OP   only run OP (stat or open) on the first tree for --seconds,
 *                  after a warm-up, and print the ns per operation: the loop
 *                  to run under perf record
 *
 * Output: a readable table, then one machine-readable line per figure:
 *   time  OP LABEL median_ns min_ns max_ns
 *   count OP LABEL PHASE SYMBOL per_op        (PHASE is cold or warm)
 *   nocount REASON
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_TREES	16
#define MAX_FILES	64
#define MAX_ROUNDS	99
#define BATCH		64
#define NR_OPS		2
#define NR_COUNTERS	4	/* x86 has four debug address registers */

enum op { OP_STAT, OP_OPEN };
static const char *const op_name[NR_OPS] = { "stat", "open" };

struct tree {
	const char *label;
	const char *dir;
	int dirfd;
	char *paths[MAX_FILES];
	double ns[NR_OPS][MAX_ROUNDS];
};

struct counter {
	const char *symbol;
	int fd;			/* -1: not available */
};

struct options {
	int rounds;
	double seconds;
	int depth;
	int files;
	long count;
	const char *user;
	int cpu;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One operation on file i of a tree; 0 or -1 with errno set. */
static int do_op(const struct tree *t, enum op op, int i)
{
	struct stat st;
	int fd;

	if (op == OP_STAT)
		return fstatat(t->dirfd, t->paths[i], &st, 0);
	fd = openat(t->dirfd, t->paths[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return close(fd);
}

/* ns per operation of a loop of at least seconds; -1 on a failed operation */
static double timed_loop(const struct tree *t, enum op op, int files, double seconds)
{
	double start = now(), elapsed;
	unsigned long done = 0;
	int i;

	do {
		for (i = 0; i < BATCH; i++) {
			if (do_op(t, op, (int)((done + (unsigned long)i) % (unsigned long)files)))
				return -1;
		}
		done += BATCH;
		elapsed = now() - start;
	} while (elapsed < seconds);
	return elapsed * 1e9 / (double)done;
}

/* The address of a function in /proc/kallsyms (text symbols only); 0 if
 * there is none, or more than one (a static function of the same name in
 * another file), or the addresses are hidden (kptr_restrict). */
static uint64_t kallsyms_address(const char *symbol)
{
	char line[512], name[256], type;
	unsigned long long addr, found = 0;
	int hits = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if ((type == 't' || type == 'T') && !strcmp(name, symbol)) {
			found = addr;
			hits++;
		}
	}
	fclose(f);
	return hits == 1 ? (uint64_t)found : 0;
}

/* A counter of the executions of the first instruction of a kernel function,
 * in this process; disabled until counting_begin(). */
static int open_counter(const char *symbol, char *why, size_t whylen)
{
	struct perf_event_attr attr;
	uint64_t addr = kallsyms_address(symbol);
	int fd;

	if (!addr) {
		snprintf(why, whylen, "%s: not a unique text symbol in /proc/kallsyms", symbol);
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = addr;
	attr.bp_len = sizeof(long);
	attr.sample_period = 0;
	attr.disabled = 1;
	attr.exclude_user = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		snprintf(why, whylen, "%s: perf_event_open: %s", symbol, strerror(errno));
	return fd;
}

static void counters_reset_enable(struct counter *c, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (c[i].fd < 0)
			continue;
		ioctl(c[i].fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(c[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

static void counters_disable(struct counter *c, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (c[i].fd >= 0)
			ioctl(c[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	}
}

static double counter_value(const struct counter *c)
{
	uint64_t v;

	if (c->fd < 0 || read(c->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	return (double)v;
}

/* Count ops operations on a tree; print one count line per counter. */
static int count_pass(const struct tree *t, enum op op, struct counter *c, int nc,
		      long ops, int files, const char *phase)
{
	long i;
	int k;

	counters_reset_enable(c, nc);
	for (i = 0; i < ops; i++) {
		if (do_op(t, op, (int)(i % files))) {
			counters_disable(c, nc);
			return -1;
		}
	}
	counters_disable(c, nc);
	for (k = 0; k < nc; k++) {
		double v = counter_value(&c[k]);

		if (v >= 0)
			printf("count %s %s %s %s %.3f\n", op_name[op], t->label, phase,
			       c[k].symbol, v / (double)ops);
	}
	return 0;
}

static int drop_privileges(const char *user)
{
	struct passwd *pw = getpwnam(user);
	gid_t groups[64];
	int ngroups = 64;

	if (!pw) {
		fprintf(stderr, "path_walk: no user '%s'\n", user);
		return -1;
	}
	if (getgrouplist(user, pw->pw_gid, groups, &ngroups) < 0) {
		fprintf(stderr, "path_walk: user '%s' is in too many groups\n", user);
		return -1;
	}
	if (setgroups((size_t)ngroups, groups) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid)) {
		perror("path_walk: cannot switch to the bench user");
		return -1;
	}
	return 0;
}

static int build_paths(struct tree *t, int depth, int files)
{
	size_t len = (size_t)depth * 5 + 16;
	int i, d;

	for (i = 0; i < files; i++) {
		char *p = malloc(len), *q = p;

		if (!p)
			return -1;
		for (d = 1; d <= depth; d++)
			q += sprintf(q, "d%d/", d);
		sprintf(q, "f%d", i);
		t->paths[i] = p;
	}
	return 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--rounds N] [--seconds S] [--depth D] [--files N] [--count N]\n"
		"       [--user NAME] [--cpu N] LABEL=DIR ...\n", argv0);
	return 2;
}

static int parse_options(int argc, char *argv[], struct options *o, int *first_tree)
{
	int i;

	*o = (struct options){ 9, 0.3, 10, 8, 1000, "nobody", -1 };
	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *arg = argv[i];

		if (i + 1 >= argc)
			return usage(argv[0]);
		if (!strcmp(arg, "--rounds"))
			o->rounds = atoi(argv[++i]);
		else if (!strcmp(arg, "--seconds"))
			o->seconds = atof(argv[++i]);
		else if (!strcmp(arg, "--depth"))
			o->depth = atoi(argv[++i]);
		else if (!strcmp(arg, "--files"))
			o->files = atoi(argv[++i]);
		else if (!strcmp(arg, "--count"))
			o->count = atol(argv[++i]);
		else if (!strcmp(arg, "--user"))
			o->user = argv[++i];
		else if (!strcmp(arg, "--cpu"))
			o->cpu = atoi(argv[++i]);
		else
			return usage(argv[0]);
	}
	if (o->rounds < 1 || o->rounds > MAX_ROUNDS || o->seconds <= 0 || o->depth < 1 ||
	    o->depth > 100 || o->files < 1 || o->files > MAX_FILES || o->count < 0) {
		fprintf(stderr, "%s: --rounds 1..%d, --seconds > 0, --depth 1..100, --files 1..%d, --count >= 0\n",
			argv[0], MAX_ROUNDS, MAX_FILES);
		return 2;
	}
	if (i == argc || argc - i > MAX_TREES)
		return usage(argv[0]);
	*first_tree = i;
	return 0;
}

static void print_table(struct tree *trees, int ntrees, const struct options *o)
{
	int t, op;

	printf("path walk: %d-deep path, %d files per tree, median of %d rounds of >= %.2f s, as user %s\n\n",
	       o->depth, o->files, o->rounds, o->seconds, o->user);
	printf("%-14s %-5s %12s %22s\n", "tree", "op", "ns/op", "fastest .. slowest");
	for (t = 0; t < ntrees; t++) {
		for (op = 0; op < NR_OPS; op++) {
			double *v = trees[t].ns[op];

			qsort(v, (size_t)o->rounds, sizeof(v[0]), cmp_double);
			printf("%-14s %-5s %12.0f %10.0f .. %9.0f\n", trees[t].label, op_name[op],
			       v[o->rounds / 2], v[0], v[o->rounds - 1]);
		}
	}
	printf("\n");
	for (t = 0; t < ntrees; t++) {
		for (op = 0; op < NR_OPS; op++) {
			double *v = trees[t].ns[op];

			printf("time %s %s %.1f %.1f %.1f\n", op_name[op], trees[t].label,
			       v[o->rounds / 2], v[0], v[o->rounds - 1]);
		}
	}
}

int main(int argc, char *argv[])
{
	static const char *const symbols[NR_OPS][NR_COUNTERS] = {
		{ "try_to_unlazy", "try_to_unlazy_next", "__d_lookup", "path_lookupat" },
		{ "try_to_unlazy", "try_to_unlazy_next", "__d_lookup", "path_openat" },
	};
	static struct tree trees[MAX_TREES];
	struct counter counters[NR_OPS][NR_COUNTERS];
	struct options o;
	int first, ntrees = 0, i, t, op, r, rc, counting = 0;
	char why[256] = "";

	rc = parse_options(argc, argv, &o, &first);
	if (rc)
		return rc;
	for (i = first; i < argc; i++) {
		struct tree *tr = &trees[ntrees++];
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || !eq[1])
			return usage(argv[0]);
		*eq = '\0';
		tr->label = argv[i];
		tr->dir = eq + 1;
		tr->dirfd = open(tr->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (tr->dirfd < 0) {
			fprintf(stderr, "path_walk: %s: %s\n", tr->dir, strerror(errno));
			return 1;
		}
		if (build_paths(tr, o.depth, o.files))
			return 1;
	}

	/* The counters need privileges: open them before switching users. */
	if (o.count > 0) {
		counting = 1;
		for (op = 0; op < NR_OPS; op++) {
			for (i = 0; i < NR_COUNTERS; i++) {
				counters[op][i].symbol = symbols[op][i];
				counters[op][i].fd = open_counter(symbols[op][i], why, sizeof(why));
				if (counters[op][i].fd < 0 && i == 0)
					counting = 0;	/* the sanity anchor is missing */
			}
		}
		if (!counting)
			printf("nocount %s\n", why);
		else if (why[0])
			printf("# some counters are missing: %s\n", why);
	}
	if (drop_privileges(o.user))
		return 1;
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("path_walk: sched_setaffinity (not pinned)");
	}

	/* first operation of each tree: cold if the caller dropped the caches */
	for (t = 0; t < ntrees; t++) {
		for (op = 0; op < NR_OPS; op++) {
			if (counting)
				rc = count_pass(&trees[t], (enum op)op, counters[op], NR_COUNTERS, 1,
						1, "cold");
			else
				rc = do_op(&trees[t], (enum op)op, 0);
			if (rc) {
				fprintf(stderr, "path_walk: %s %s/%s: %s\n", op_name[op],
					trees[t].dir, trees[t].paths[0], strerror(errno));
				return 1;
			}
		}
	}
	/* warm up every file, then count warm lookups */
	for (t = 0; t < ntrees; t++) {
		for (op = 0; op < NR_OPS; op++) {
			for (i = 0; i < 200 * o.files; i++) {
				if (do_op(&trees[t], (enum op)op, i % o.files)) {
					fprintf(stderr, "path_walk: %s %s/%s: %s\n", op_name[op],
						trees[t].dir, trees[t].paths[i % o.files],
						strerror(errno));
					return 1;
				}
			}
			if (counting && count_pass(&trees[t], (enum op)op, counters[op],
						   NR_COUNTERS, o.count, o.files, "warm"))
				return 1;
		}
	}
	fflush(stdout);

	for (r = 0; r < o.rounds; r++) {
		for (i = 0; i < ntrees; i++) {
			struct tree *tr = &trees[(i + r) % ntrees];

			for (op = 0; op < NR_OPS; op++) {
				double ns = timed_loop(tr, (enum op)op, o.files, o.seconds);

				if (ns < 0) {
					fprintf(stderr, "path_walk: %s in %s: %s\n", op_name[op],
						tr->dir, strerror(errno));
					return 1;
				}
				tr->ns[op][r] = ns;
			}
		}
	}
	print_table(trees, ntrees, &o);
	return 0;
}
