/*
 * smb_meta.c - SMB metadata operations per second through smbd, from one
 * client process over one persistent connection (libsmbclient, SMB2/3).
 *
 *     smb_meta --url smb://127.0.0.1/SHARE --user NAME --password PW
 *              [--conf CLIENT.CONF] [--files N] [--dirs N] [--acl-ops N]
 *              [--runs N] [--first-run N] [--workloads LIST]
 *              [--browse-files N] [--browse-reps N] [--copy-files N] [--copy-dirs N]
 *              [--tag TEXT]
 *
 * Workloads (each run in a fresh directory that is removed afterwards):
 *
 *   flat    N files in one directory,
 *   spread  N files spread over --dirs directories (made before the clock
 *           starts),
 *           each in three timed phases over all N files:
 *             create  open(O_CREAT|O_EXCL), write 4 KiB, close
 *             rename  rename to a new name in the same directory
 *             delete  unlink
 *   acl     get and set the security descriptor of one file whose DACL has
 *           10 entries (one deny, nine allow: users, a group, Everyone),
 *           --acl-ops times each.  libsmbclient's "system.nt_sec_desc.*"
 *           attribute, SIDs in numeric form (with a trailing '+' in the
 *           name, libsmbclient would look every SID up over LSA): a get is
 *           open + QUERY_INFO(security) + close; a set is that get followed
 *           by open + SET_INFO(security) + close, as libsmbclient does it.
 *
 *
 * Workloads that users run (issue 14, point 3), not in the default list:
 *
 *   browse  what Explorer does in a folder of --browse-files files (default
 *           1000), each carrying the 10-entry descriptor of acl (every
 *           tenth one also denies the connected user read access).  The
 *           folder bench-browse is made on the first run and kept; it is
 *           never timed, nor is one listing and one descriptor read before
 *           the phases (which opens libsmbclient's IPC$ connection).  Two
 *           timed phases, ops = directory entries listed:
 *             list     --browse-reps (default 20) listings: opendir +
 *                      readdir of every entry + closedir
 *             list+sd  one listing, then the descriptor of every entry
 *                      (open + QUERY_INFO(security) + close, the open
 *                      itself checked against the descriptor)
 *           A listing with another number of entries than --browse-files
 *           (or, hidden, nine tenths of it) is an error.
 *           Run against a share with "hide unreadable = yes", the listing
 *           makes smbd check every entry's descriptor, and the unreadable
 *           tenth is left out.  libsmbclient cannot ask for the maximal
 *           access (the MxAc create context); the open of each descriptor
 *           read goes through the same access check.
 *   copy    a robocopy /COPYALL-style copy: --copy-dirs directories
 *           (default 50) and --copy-files files (default 2000) spread over
 *           them, each created, written with 64 KiB, closed and given the
 *           10-entry descriptor.  One timed phase, ops = files, directory
 *           creation included.  The tree bench-copy-RUN is left in place
 *           (the caller removes it, or walks it).
 *
 * Runs are numbered from --first-run (default 0), so that a caller can
 * interleave the shares run by run with one process per share and run.
 *
 * Output, one line per phase and run (the host takes the median):
 *   smb TAG WORKLOAD PHASE RUN OPS SECONDS OPS_PER_SECOND
 * and "aces TAG N": the number of entries the server returns for the
 * 10-entry descriptor (a check that the share kept them).
 *
 * libsmbclient keeps the connection of the first call open and reuses it
 * for every later call to the same server and share; descriptor operations
 * also use its IPC$ connection, opened once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libsmbclient.h>

#define WRITE_SIZE	4096
#define COPY_SIZE	65536
#define MAX_RUNS	99
#define NT_SD_BUF	16384

struct config {
	const char *url;
	const char *user;
	const char *password;
	const char *conf;
	const char *tag;
	long files;
	long dirs;
	long acl_ops;
	long browse_files;
	long browse_reps;
	long copy_files;
	long copy_dirs;
	int runs;
	int first_run;
	int flat, spread, acl, browse, copy;
};

static const struct config *credentials;

static void auth_fn(SMBCCTX *ctx, const char *server, const char *share, char *workgroup,
		    int wglen, char *username, int unlen, char *password, int pwlen)
{
	snprintf(workgroup, (size_t)wglen, "%s", "RICHACL");
	snprintf(username, (size_t)unlen, "%s", credentials->user);
	snprintf(password, (size_t)pwlen, "%s", credentials->password);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void report(const struct config *c, const char *workload, const char *phase, int run,
		   long ops, double seconds)
{
	printf("smb %s %s %s %d %ld %.4f %.1f\n", c->tag, workload, phase, run, ops, seconds,
	       (double)ops / seconds);
	fflush(stdout);
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "smb_meta: %s %s: %s\n", what, path, strerror(errno));
	return -1;
}

/* the name of file i of a run; spread runs put it in directory i % dirs */
static void file_url(char *buf, size_t len, const char *base, long i, long dirs,
		     const char *suffix)
{
	if (dirs > 0)
		snprintf(buf, len, "%s/d%03ld/f%05ld%s", base, i % dirs, i, suffix);
	else
		snprintf(buf, len, "%s/f%05ld%s", base, i, suffix);
}

/* create url (which must not exist), write size bytes of data, close */
static int create_file(const char *url, const char *data, size_t size)
{
	int fd;

	fd = smbc_open(url, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return fail("create", url);
	if (smbc_write(fd, data, size) != (ssize_t)size) {
		fail("write", url);
		smbc_close(fd);
		return -1;
	}
	if (smbc_close(fd) < 0)
		return fail("close", url);
	return 0;
}

static int phase_create(const struct config *c, const char *base, long dirs)
{
	static char data[WRITE_SIZE];
	char url[1024];
	long i;

	memset(data, 'x', sizeof(data));
	for (i = 0; i < c->files; i++) {
		file_url(url, sizeof(url), base, i, dirs, "");
		if (create_file(url, data, sizeof(data)))
			return -1;
	}
	return 0;
}

static int phase_rename(const struct config *c, const char *base, long dirs)
{
	char from[1024], to[1024];
	long i;

	for (i = 0; i < c->files; i++) {
		file_url(from, sizeof(from), base, i, dirs, "");
		file_url(to, sizeof(to), base, i, dirs, ".renamed");
		if (smbc_rename(from, to) < 0)
			return fail("rename", from);
	}
	return 0;
}

static int phase_delete(const struct config *c, const char *base, long dirs)
{
	char url[1024];
	long i;

	for (i = 0; i < c->files; i++) {
		file_url(url, sizeof(url), base, i, dirs, ".renamed");
		if (smbc_unlink(url) < 0)
			return fail("unlink", url);
	}
	return 0;
}

/* one run of flat (dirs == 0) or spread (dirs > 0) */
static int files_run(const struct config *c, const char *workload, long dirs, int run)
{
	static int (*const phases[])(const struct config *, const char *, long) = {
		phase_create, phase_rename, phase_delete,
	};
	static const char *const phase_names[] = { "create", "rename", "delete" };
	char base[768], dir[1024];
	size_t p;
	long d;

	snprintf(base, sizeof(base), "%s/bench-%s-%d", c->url, workload, run);
	if (smbc_mkdir(base, 0755) < 0)
		return fail("mkdir", base);
	for (d = 0; d < dirs; d++) {
		snprintf(dir, sizeof(dir), "%s/d%03ld", base, d);
		if (smbc_mkdir(dir, 0755) < 0)
			return fail("mkdir", dir);
	}
	for (p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
		double start = now();

		if (phases[p](c, base, dirs))
			return -1;
		report(c, workload, phase_names[p], run, c->files, now() - start);
	}
	for (d = 0; d < dirs; d++) {
		snprintf(dir, sizeof(dir), "%s/d%03ld", base, d);
		if (smbc_rmdir(dir) < 0)
			return fail("rmdir", dir);
	}
	if (smbc_rmdir(base) < 0)
		return fail("rmdir", base);
	return 0;
}

/*
 * The 10-entry DACL in libsmbclient's numeric form (type/flags/mask, in
 * decimal).  Samba's Unix Users / Unix Groups SIDs map to uids and gids
 * without a lookup: alice (1001, the connected user) has full control, bob
 * (1002) read+write, carol (1003) is denied write, the group staff (2000)
 * and five users without accounts may read, Everyone may read.
 */
static const char *const acl_entries[] = {
	"S-1-22-1-1003:1/0/278",	/* deny write data/attrs/ea */
	"S-1-22-1-1001:0/0/2032127",	/* full control */
	"S-1-22-1-1002:0/0/1180063",	/* read + write */
	"S-1-22-2-2000:0/0/1179817",	/* read + execute */
	"S-1-22-1-5001:0/0/1179817",
	"S-1-22-1-5002:0/0/1179817",
	"S-1-22-1-5003:0/0/1179817",
	"S-1-22-1-5004:0/0/1179817",
	"S-1-22-1-5005:0/0/1179817",
	"S-1-1-0:0/0/1179817",		/* Everyone */
};

/* browse: every tenth file denies the connected user (alice) read_data */
#define DENY_ALICE_READ	"S-1-22-1-1001:1/0/1"

/* the descriptor value of acl_entries, after first (if not NULL) */
static char *acl_value(const char *first)
{
	size_t i, len = 16 + (first ? strlen(first) + 5 : 0);
	char *v;

	for (i = 0; i < sizeof(acl_entries) / sizeof(acl_entries[0]); i++)
		len += strlen(acl_entries[i]) + 5;
	v = malloc(len);
	if (!v)
		return NULL;
	strcpy(v, "REVISION:1");
	if (first) {
		strcat(v, ",ACL:");
		strcat(v, first);
	}
	for (i = 0; i < sizeof(acl_entries) / sizeof(acl_entries[0]); i++) {
		strcat(v, ",ACL:");
		strcat(v, acl_entries[i]);
	}
	return v;
}

static int set_sd(const char *url, const char *value)
{
	if (smbc_setxattr(url, "system.nt_sec_desc.*", value, strlen(value), 0) < 0)
		return fail("set the descriptor of", url);
	return 0;
}

static int count_aces(const char *sd)
{
	int n = 0;

	while ((sd = strstr(sd, "ACL:")) != NULL) {
		n++;
		sd += 4;
	}
	return n;
}

static int acl_run(const struct config *c, int run, const char *value)
{
	char url[1024], buf[NT_SD_BUF];
	double start;
	long i;
	int fd;

	snprintf(url, sizeof(url), "%s/bench-acl-%d", c->url, run);
	fd = smbc_open(url, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0 || smbc_close(fd) < 0)
		return fail("create", url);
	if (set_sd(url, value))
		return -1;
	if (smbc_getxattr(url, "system.nt_sec_desc.*", buf, sizeof(buf)) < 0)
		return fail("get the descriptor of", url);
	if (run == c->first_run)
		printf("aces %s %d\n", c->tag, count_aces(buf));

	start = now();
	for (i = 0; i < c->acl_ops; i++) {
		if (smbc_getxattr(url, "system.nt_sec_desc.*", buf, sizeof(buf)) < 0)
			return fail("get the descriptor of", url);
	}
	report(c, "acl", "get", run, c->acl_ops, now() - start);

	start = now();
	for (i = 0; i < c->acl_ops; i++) {
		if (set_sd(url, value))
			return -1;
	}
	report(c, "acl", "set", run, c->acl_ops, now() - start);

	if (smbc_unlink(url) < 0)
		return fail("unlink", url);
	return 0;
}

/*
 * browse: the folder, made once and kept.  It is built under a temporary
 * name and renamed when complete, so that a run that failed half-way is not
 * taken for a finished folder (a leftover temporary folder makes the next
 * setup fail, which the caller sees).
 */
static int browse_setup(const struct config *c, const char *base, const char *value,
			const char *denied)
{
	char url[1024], tmp[900];
	struct stat st;
	long i;

	if (smbc_stat(base, &st) == 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", base);
	if (smbc_mkdir(tmp, 0755) < 0)
		return fail("mkdir", tmp);
	for (i = 0; i < c->browse_files; i++) {
		file_url(url, sizeof(url), tmp, i, 0, ".txt");
		if (create_file(url, "", 0) ||
		    set_sd(url, i % 10 == 9 ? denied : value))
			return -1;
	}
	if (smbc_rename(tmp, base) < 0)
		return fail("rename", tmp);
	return 0;
}

/*
 * One listing of base; with_sd: read every entry's descriptor too.
 * Returns the number of entries (files, not . and ..), or -1.
 */
static long browse_list(const char *base, int with_sd)
{
	char url[1024], buf[NT_SD_BUF];
	struct smbc_dirent *e;
	long n = 0;
	int dh;

	dh = smbc_opendir(base);
	if (dh < 0)
		return fail("opendir", base);
	while ((e = smbc_readdir(dh)) != NULL) {
		if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
			continue;
		n++;
		if (!with_sd)
			continue;
		snprintf(url, sizeof(url), "%s/%s", base, e->name);
		if (smbc_getxattr(url, "system.nt_sec_desc.*", buf, sizeof(buf)) < 0) {
			fail("get the descriptor of", url);
			smbc_closedir(dh);
			return -1;
		}
	}
	if (smbc_closedir(dh) < 0)
		return fail("closedir", base);
	return n;
}

static int browse_run(const struct config *c, int run, const char *value, const char *denied)
{
	static const char *const phase_names[] = { "list", "list+sd" };
	char base[768];
	int with_sd;

	char buf[NT_SD_BUF];
	long n, hidden;
	int rep;

	snprintf(base, sizeof(base), "%s/bench-browse", c->url);
	if (browse_setup(c, base, value, denied))
		return -1;
	/*
	 * Untimed: a listing, and the descriptor of the folder, which makes
	 * libsmbclient open its IPC$ connection (and LSA pipe) now rather
	 * than inside the first timed descriptor read.
	 */
	if (browse_list(base, 0) < 0)
		return -1;
	if (smbc_getxattr(base, "system.nt_sec_desc.*", buf, sizeof(buf)) < 0)
		return fail("get the descriptor of", base);
	/* a hide-unreadable share leaves out the tenth that denies read */
	hidden = c->browse_files - c->browse_files / 10;
	for (with_sd = 0; with_sd < 2; with_sd++) {
		int reps = with_sd ? 1 : (int)c->browse_reps;
		double start = now();

		for (rep = 0, n = 0; rep < reps; rep++) {
			long got = browse_list(base, with_sd);

			if (got < 0)
				return -1;
			if (got != c->browse_files && got != hidden) {
				fprintf(stderr, "smb_meta: %s lists %ld entries, not %ld or %ld\n",
					base, got, c->browse_files, hidden);
				return -1;
			}
			n += got;
		}
		report(c, "browse", phase_names[with_sd], run, n, now() - start);
	}
	return 0;
}

static int copy_run(const struct config *c, int run, const char *value)
{
	static char data[COPY_SIZE];
	char base[768], url[1024];
	double start;
	long i;

	memset(data, 'c', sizeof(data));
	snprintf(base, sizeof(base), "%s/bench-copy-%d", c->url, run);
	start = now();
	if (smbc_mkdir(base, 0755) < 0)
		return fail("mkdir", base);
	if (set_sd(base, value))
		return -1;
	for (i = 0; i < c->copy_dirs; i++) {
		snprintf(url, sizeof(url), "%s/d%03ld", base, i);
		if (smbc_mkdir(url, 0755) < 0)
			return fail("mkdir", url);
		if (set_sd(url, value))
			return -1;
	}
	for (i = 0; i < c->copy_files; i++) {
		file_url(url, sizeof(url), base, i, c->copy_dirs, "");
		if (create_file(url, data, sizeof(data)) || set_sd(url, value))
			return -1;
	}
	report(c, "copy", "files", run, c->copy_files, now() - start);
	return 0;
}

static int parse_workloads(struct config *c, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;

	if (!copy)
		return -1;
	c->flat = c->spread = c->acl = c->browse = c->copy = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "flat")) {
			c->flat = 1;
		} else if (!strcmp(tok, "spread")) {
			c->spread = 1;
		} else if (!strcmp(tok, "acl")) {
			c->acl = 1;
		} else if (!strcmp(tok, "browse")) {
			c->browse = 1;
		} else if (!strcmp(tok, "copy")) {
			c->copy = 1;
		} else {
			fprintf(stderr, "smb_meta: unknown workload '%s'\n", tok);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: smb_meta --url smb://HOST/SHARE --user NAME --password PW\n"
		"       [--conf FILE] [--files N] [--dirs N] [--acl-ops N] [--runs N] [--first-run N]\n"
		"       [--workloads flat,spread,acl,browse,copy] [--browse-files N] [--browse-reps N]\n"
		"       [--copy-files N] [--copy-dirs N] [--tag TEXT]\n");
	return 2;
}

static int parse_args(int argc, char *argv[], struct config *c)
{
	int i;

	*c = (struct config){ .files = 2000, .dirs = 100, .acl_ops = 200, .runs = 1,
			      .browse_files = 1000, .browse_reps = 20, .copy_files = 2000,
			      .copy_dirs = 50,
			      .flat = 1, .spread = 1, .acl = 1 };
	for (i = 1; i < argc; i += 2) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val)
			return usage();
		if (!strcmp(opt, "--url"))
			c->url = val;
		else if (!strcmp(opt, "--user"))
			c->user = val;
		else if (!strcmp(opt, "--password"))
			c->password = val;
		else if (!strcmp(opt, "--conf"))
			c->conf = val;
		else if (!strcmp(opt, "--tag"))
			c->tag = val;
		else if (!strcmp(opt, "--files"))
			c->files = atol(val);
		else if (!strcmp(opt, "--dirs"))
			c->dirs = atol(val);
		else if (!strcmp(opt, "--acl-ops"))
			c->acl_ops = atol(val);
		else if (!strcmp(opt, "--browse-files"))
			c->browse_files = atol(val);
		else if (!strcmp(opt, "--browse-reps"))
			c->browse_reps = atol(val);
		else if (!strcmp(opt, "--copy-files"))
			c->copy_files = atol(val);
		else if (!strcmp(opt, "--copy-dirs"))
			c->copy_dirs = atol(val);
		else if (!strcmp(opt, "--runs"))
			c->runs = atoi(val);
		else if (!strcmp(opt, "--first-run"))
			c->first_run = atoi(val);
		else if (!strcmp(opt, "--workloads")) {
			if (parse_workloads(c, val))
				return 2;
		} else
			return usage();
	}
	if (!c->url || !c->user || !c->password)
		return usage();
	if (c->files < 1 || c->files > 99999 || c->dirs < 1 || c->dirs > 999 ||
	    c->acl_ops < 1 || c->runs < 1 || c->runs > MAX_RUNS || c->first_run < 0 ||
	    c->browse_files < 1 || c->browse_files > 99999 || c->browse_reps < 1 ||
	    c->browse_reps > 1000 || c->copy_files < 1 ||
	    c->copy_files > 99999 || c->copy_dirs < 1 || c->copy_dirs > 999) {
		fprintf(stderr, "smb_meta: --files, --browse-files and --copy-files 1..99999, --dirs and --copy-dirs 1..999, --browse-reps 1..1000, --acl-ops >= 1, --runs 1..%d, --first-run >= 0\n",
			MAX_RUNS);
		return 2;
	}
	if (!c->tag) {
		const char *slash = strrchr(c->url, '/');

		c->tag = slash ? slash + 1 : c->url;
	}
	return 0;
}

int main(int argc, char *argv[])
{
	struct config c;
	SMBCCTX *ctx;
	char *value, *denied;
	int run, rc;

	rc = parse_args(argc, argv, &c);
	if (rc)
		return rc;
	credentials = &c;
	value = acl_value(NULL);
	denied = acl_value(DENY_ALICE_READ);
	ctx = smbc_new_context();
	if (!ctx || !value || !denied) {
		fprintf(stderr, "smb_meta: out of memory\n");
		return 1;
	}
	if (c.conf && smbc_setConfiguration(ctx, c.conf) < 0)
		fprintf(stderr, "smb_meta: cannot load %s (defaults used)\n", c.conf);
	smbc_setFunctionAuthDataWithContext(ctx, auth_fn);
	smbc_setOptionUseKerberos(ctx, 0);
	smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
	smbc_setOptionProtocols(ctx, "SMB2_02", "SMB3");
	if (!smbc_init_context(ctx)) {
		fprintf(stderr, "smb_meta: smbc_init_context: %s\n", strerror(errno));
		return 1;
	}
	smbc_set_context(ctx);

	rc = 0;
	for (run = c.first_run; run < c.first_run + c.runs && !rc; run++) {
		if (c.flat && files_run(&c, "flat", 0, run))
			rc = 1;
		if (!rc && c.spread && files_run(&c, "spread", c.dirs, run))
			rc = 1;
		if (!rc && c.acl && acl_run(&c, run, value))
			rc = 1;
		if (!rc && c.browse && browse_run(&c, run, value, denied))
			rc = 1;
		if (!rc && c.copy && copy_run(&c, run, value))
			rc = 1;
	}
	smbc_free_context(ctx, 1);
	free(value);
	free(denied);
	return rc;
}
