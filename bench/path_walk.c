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
 * Output: a readable table, and machine-readable lines:
 *   rounds OP LABEL ns_round_1 ... ns_round_N
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
#define MAX_GROUPS	64
#define BATCH		64
#define NR_OPS		2
#define NR_COUNTERS	4	/* x86 has four debug address registers */

enum op { OP_STAT, OP_OPEN };
static const char *const op_name[NR_OPS] = { "stat", "open" };
static const char *const counted[NR_OPS][NR_COUNTERS] = {
	{ "__d_lookup", "try_to_unlazy", "try_to_unlazy_next", "path_lookupat" },
	{ "__d_lookup", "try_to_unlazy", "try_to_unlazy_next", "path_openat" },
};

struct tree {
	const char *label;
	const char *dir;
	int dirfd;
	char *paths[MAX_FILES];
	double ns[NR_OPS][MAX_ROUNDS];
};

struct options {
	int rounds;
	double seconds;
	int depth;
	int files;
	long count;
	const char *user;
	int cpu;
	int profile;		/* -1, or the op to profile */
};

/* the unprivileged identity of the lookups */
struct identity {
	uid_t uid;
	gid_t gid;
	gid_t groups[MAX_GROUPS];
	int ngroups;
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

static int do_ops(const struct tree *t, enum op op, long n, int files)
{
	long i;

	for (i = 0; i < n; i++) {
		if (do_op(t, op, (int)(i % files))) {
			fprintf(stderr, "path_walk: %s %s/%s: %s\n", op_name[op], t->dir,
				t->paths[i % files], strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ns per operation of a loop of at least seconds; -1 on a failed operation */
static double timed_loop(const struct tree *t, enum op op, int files, double seconds)
{
	double start = now(), elapsed;
	unsigned long done = 0;
	int i;

	do {
		for (i = 0; i < BATCH; i++) {
			if (do_op(t, op, (int)((done + (unsigned long)i) % (unsigned long)files))) {
				fprintf(stderr, "path_walk: %s in %s: %s\n", op_name[op], t->dir,
					strerror(errno));
				return -1;
			}
		}
		done += BATCH;
		elapsed = now() - start;
	} while (elapsed < seconds);
	return elapsed * 1e9 / (double)done;
}

/*
 * The address of a function in /proc/kallsyms; 0 if there is none, or more
 * than one (static functions of the same name), or the addresses are hidden.
 */
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

/*
 * A disabled counter of the calls of a kernel function by this process.
 * Needs CAP_SYS_ADMIN (kernel breakpoint) and a kernel that allows execute
 * breakpoints in its text.  Returns the fd, or -1 with a reason in why.
 */
static int open_counter(const char *symbol, char *why, size_t whylen)
{
	struct perf_event_attr attr;
	uint64_t addr = kallsyms_address(symbol);
	int fd;

	if (!addr) {
		snprintf(why, whylen, "%s is not a unique function in /proc/kallsyms", symbol);
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = addr;
	attr.bp_len = sizeof(long);
	attr.disabled = 1;
	attr.exclude_user = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL)
		snprintf(why, whylen, "the kernel refuses a breakpoint on %s (EINVAL: built without CONFIG_KPROBES?)",
			 symbol);
	else if (fd < 0)
		snprintf(why, whylen, "perf_event_open on %s: %s", symbol, strerror(errno));
	return fd;
}

static int lookup_identity(const char *user, struct identity *id)
{
	struct passwd *pw = getpwnam(user);

	if (!pw) {
		fprintf(stderr, "path_walk: no user '%s'\n", user);
		return -1;
	}
	id->uid = pw->pw_uid;
	id->gid = pw->pw_gid;
	id->ngroups = MAX_GROUPS;
	if (getgrouplist(user, pw->pw_gid, id->groups, &id->ngroups) < 0) {
		fprintf(stderr, "path_walk: user '%s' is in too many groups\n", user);
		return -1;
	}
	return 0;
}

/*
 * Become the bench user, but keep root as the saved uid, so that
 * open_counters() can switch the effective uid back for a moment.  Without
 * effective uid 0 the process has no effective capabilities: the lookups see
 * the permission checks of an ordinary user.
 */
static int become_user(const struct identity *id)
{
	if (setgroups((size_t)id->ngroups, id->groups) ||
	    setresgid(id->gid, id->gid, id->gid) ||
	    setresuid(id->uid, id->uid, 0)) {
		perror("path_walk: cannot switch to the bench user");
		return -1;
	}
	return 0;
}

/*
 * Open the counters of one operation (fds[i] = -1 where impossible, the
 * first reason in why if it is still empty); returns 0 if the counting can
 * go ahead, i.e. at least __d_lookup and one try_to_unlazy variant are there.
 */
static int open_counters(enum op op, const struct identity *id, int fds[NR_COUNTERS],
			 char *why, size_t whylen)
{
	int i, ok;

	if (seteuid(0)) {
		snprintf(why, whylen, "seteuid(0): %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < NR_COUNTERS; i++) {
		char reason[256];

		fds[i] = open_counter(counted[op][i], reason, sizeof(reason));
		if (fds[i] < 0 && !why[0])
			snprintf(why, whylen, "%s", reason);	/* the first reason */
	}
	if (seteuid(id->uid)) {
		perror("path_walk: cannot switch back to the bench user");
		exit(1);
	}
	ok = fds[0] >= 0 && (fds[1] >= 0 || fds[2] >= 0);
	if (!ok) {
		for (i = 0; i < NR_COUNTERS; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
		}
	}
	return ok ? 0 : -1;
}

/* Count n operations on file 0.. of a tree and print one line per counter. */
static int count_ops(const struct tree *t, enum op op, const int fds[NR_COUNTERS], long n,
		     int files, const char *phase)
{
	uint64_t v;
	int i, rc;

	for (i = 0; i < NR_COUNTERS; i++) {
		if (fds[i] >= 0) {
			ioctl(fds[i], PERF_EVENT_IOC_RESET, 0);
			ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
		}
	}
	rc = do_ops(t, op, n, files);
	for (i = 0; i < NR_COUNTERS; i++) {
		if (fds[i] >= 0)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	}
	if (rc)
		return -1;
	for (i = 0; i < NR_COUNTERS; i++) {
		if (fds[i] >= 0 && read(fds[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
			printf("count %s %s %s %s %.3f\n", op_name[op], t->label, phase,
			       counted[op][i], (double)v / (double)n);
	}
	return 0;
}

/*
 * The counting passes: the first operation on each tree (cold), then, after
 * a warm-up of every file, o->count operations (warm).  Without counters only
 * the warm-up runs.  Returns -1 if an operation failed.
 */
static int count_all(struct tree *trees, int ntrees, const struct options *o,
		     const struct identity *id)
{
	int fds[NR_OPS][NR_COUNTERS], have[NR_OPS] = { 0, 0 };
	char why[256] = "";
	int t, op, i;

	for (op = 0; op < NR_OPS && o->count > 0; op++)
		have[op] = !open_counters((enum op)op, id, fds[op], why, sizeof(why));
	if (o->count > 0 && (!have[OP_STAT] || !have[OP_OPEN]))
		printf("nocount %s\n", why);
	/* hardware breakpoint slots are per task: one operation's set at a time */
	for (op = 0; op < NR_OPS; op++) {
		for (t = 0; t < ntrees; t++) {
			if (have[op] ? count_ops(&trees[t], (enum op)op, fds[op], 1, 1, "cold")
				     : do_ops(&trees[t], (enum op)op, 1, 1))
				return -1;
		}
	}
	for (op = 0; op < NR_OPS; op++) {
		for (t = 0; t < ntrees; t++) {
			if (do_ops(&trees[t], (enum op)op, 200L * o->files, o->files))
				return -1;
			if (have[op] && count_ops(&trees[t], (enum op)op, fds[op], o->count,
						  o->files, "warm"))
				return -1;
		}
		for (i = 0; have[op] && i < NR_COUNTERS; i++) {
			if (fds[op][i] >= 0)
				close(fds[op][i]);
		}
	}
	fflush(stdout);
	return 0;
}

static int time_all(struct tree *trees, int ntrees, const struct options *o)
{
	int r, i, op;

	for (r = 0; r < o->rounds; r++) {
		for (i = 0; i < ntrees; i++) {
			struct tree *tr = &trees[(i + r) % ntrees];

			for (op = 0; op < NR_OPS; op++) {
				double ns = timed_loop(tr, (enum op)op, o->files, o->seconds);

				if (ns < 0)
					return -1;
				tr->ns[op][r] = ns;
			}
		}
	}
	return 0;
}

static void print_table(struct tree *trees, int ntrees, const struct options *o)
{
	int t, op, r;

	for (t = 0; t < ntrees; t++) {		/* in round order, before sorting */
		for (op = 0; op < NR_OPS; op++) {
			printf("rounds %s %s", op_name[op], trees[t].label);
			for (r = 0; r < o->rounds; r++)
				printf(" %.1f", trees[t].ns[op][r]);
			printf("\n");
		}
	}

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
		"       [--user NAME] [--cpu N] [--profile stat|open] LABEL=DIR ...\n", argv0);
	return 2;
}

/* the op named s; -2 if there is none */
static int parse_op(const char *s)
{
	int op;

	for (op = 0; op < NR_OPS; op++) {
		if (!strcmp(s, op_name[op]))
			return op;
	}
	return -2;
}

static int parse_options(int argc, char *argv[], struct options *o, int *first_tree)
{
	int i;

	*o = (struct options){ 9, 0.3, 10, 8, 1000, "nobody", -1, -1 };
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
		else if (!strcmp(arg, "--profile"))
			o->profile = parse_op(argv[++i]);
		else
			return usage(argv[0]);
	}
	if (o->profile == -2) {
		fprintf(stderr, "%s: --profile wants stat or open\n", argv[0]);
		return 2;
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

static int open_tree(struct tree *t, char *arg, const struct options *o)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return -1;
	*eq = '\0';
	t->label = arg;
	t->dir = eq + 1;
	t->dirfd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0) {
		fprintf(stderr, "path_walk: %s: %s\n", t->dir, strerror(errno));
		return -1;
	}
	return build_paths(t, o->depth, o->files);
}

int main(int argc, char *argv[])
{
	static struct tree trees[MAX_TREES];
	struct identity id;
	struct options o;
	int first, ntrees = 0, i, rc;

	rc = parse_options(argc, argv, &o, &first);
	if (rc)
		return rc;
	for (i = first; i < argc; i++) {
		if (open_tree(&trees[ntrees++], argv[i], &o))
			return usage(argv[0]);
	}
	if (lookup_identity(o.user, &id) || become_user(&id))
		return 1;
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("path_walk: sched_setaffinity (not pinned)");
	}

	if (o.profile >= 0) {
		double ns;

		if (do_ops(&trees[0], (enum op)o.profile, 200L * o.files, o.files))
			return 1;
		ns = timed_loop(&trees[0], (enum op)o.profile, o.files, o.seconds);
		if (ns < 0)
			return 1;
		printf("profile %s %s %.1f\n", op_name[o.profile], trees[0].label, ns);
		return 0;
	}
	if (count_all(trees, ntrees, &o, &id) || time_all(trees, ntrees, &o))
		return 1;
	print_table(trees, ntrees, &o);
	return 0;
}
