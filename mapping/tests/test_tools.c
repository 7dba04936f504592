/*
 * test_tools.c - getrichacl and setrichacl, run as programs (posix_spawn),
 * with their stdout, stderr and exit status compared against the observed
 * outputs of algorithms.md 7.3 (getrichacl) and 7.4 (setrichacl).
 *
 * Two kinds of filesystem:
 *  - plain: the host filesystem, which has no richacl support (getxattr of
 *    system.richacl fails with EOPNOTSUPP).  The tools show the acl
 *    equivalent to the mode (M1) and can only set mode-equivalent acls,
 *    through chmod.
 *  - emulated: the same files with the LD_PRELOAD shim fake_richacl_fs.c,
 *    which applies the kernel store rule of algorithms.md 9 (an equivalent
 *    acl is stored as the mode alone (M12), otherwise the acl is stored and
 *    the mode follows the masks; chmod rewrites the masks).
 *
 * Names: the tools use the host's name service; the expected outputs use
 * Debian's fixed system accounts (uid 1 daemon, uid 2 bin, gid 4 adm) as the
 * spec does, and unnamed ids (1234, 4321, 2000) otherwise.
 *
 * Environment: RICHACL_TOOLS_DIR (default: the build dir above this test),
 * RICHACL_SRCDIR (default: the dir above that), RICHACL_FAKE_FS (a prebuilt
 * shim; default: build/tests/libfake_richacl_fs.so if waf built it, else the
 * test compiles it with cc), TEST_TOOLS_SEED (seed of the random round trip).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "richacl.h"

#define FAKE_STORE "user.fake_richacl"	/* where the shim keeps the acl */

extern char **environ;

static char *tools_dir;		/* the built getrichacl and setrichacl */
static char *src_dir;		/* the source tree */
static char *shim_path;		/* the fake richacl fs shim */
static char *work_root;		/* the temp dir of this run */
static unsigned int test_counter;

struct result {
	int status;
	char *out;
	char *err;
};

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return s;
}

/* ---- files ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, alloc = 0, got;

	assert_non_null(f);
	do {
		if (alloc - len < 4096) {
			alloc = alloc ? 2 * alloc : 8192;
			buf = realloc(buf, alloc);
			assert_non_null(buf);
		}
		got = fread(buf + len, 1, alloc - len - 1, f);
		len += got;
	} while (got);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void make_file(const char *name, mode_t mode)
{
	int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(name, mode), 0);
}

static void make_dir(const char *name, mode_t mode)
{
	assert_int_equal(mkdir(name, 0700), 0);
	assert_int_equal(chmod(name, mode), 0);
}

static mode_t file_mode(const char *name)
{
	struct stat st;

	assert_int_equal(stat(name, &st), 0);
	return st.st_mode & 07777;
}

static bool has_stored_acl(const char *name)
{
	return getxattr(name, FAKE_STORE, NULL, 0) >= 0;
}

/* the acl the shim stored, or NULL */
static struct richacl *stored_acl(const char *name)
{
	char buf[65536];
	struct richacl_error err;
	struct richacl *acl;
	ssize_t size = getxattr(name, FAKE_STORE, buf, sizeof(buf));

	if (size < 0)
		return NULL;
	assert_int_equal(richacl_from_xattr(buf, (size_t)size, &acl, &err), 0);
	return acl;
}

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, v & 0xffff);
	put_le16(p + 2, v >> 16);
}

/* a POSIX acl u::rw-,u:1:r--,g::r--,m::r--,o::r-- in the kernel's xattr form */
static void set_posix_acl(const char *name, const char *xattr)
{
	static const uint16_t tags[] = { 0x01, 0x02, 0x04, 0x10, 0x20 };
	static const uint16_t perms[] = { 6, 4, 4, 4, 4 };
	unsigned char buf[4 + 5 * 8];
	unsigned int i;

	put_le32(buf, 2);
	for (i = 0; i < 5; i++) {
		put_le16(buf + 4 + 8 * i, tags[i]);
		put_le16(buf + 6 + 8 * i, perms[i]);
		put_le32(buf + 8 + 8 * i, tags[i] == 0x02 ? 1 : 0xffffffff);
	}
	assert_int_equal(setxattr(name, xattr, buf, sizeof(buf), 0), 0);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- running programs ---- */

static char *env_entry(const char *name, const char *value)
{
	char *s = malloc(strlen(name) + strlen(value) + 2);

	assert_non_null(s);
	sprintf(s, "%s=%s", name, value);
	return s;
}

/* environ without LD_PRELOAD and LC_*, plus LC_ALL=C and the shim if asked */
static char **child_env(bool emulated)
{
	size_t n = 0, i, j = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	assert_non_null(env);
	for (i = 0; i < n; i++) {
		if (!strncmp(environ[i], "LD_PRELOAD=", 11) || !strncmp(environ[i], "LC_", 3) ||
		    !strncmp(environ[i], "LANG=", 5) || !strncmp(environ[i], "LANGUAGE=", 9))
			continue;
		env[j++] = strdup(environ[i]);
	}
	env[j++] = env_entry("LC_ALL", "C");
	if (emulated)
		env[j++] = env_entry("LD_PRELOAD", shim_path);
	env[j] = NULL;
	return env;
}

static void free_env(char **env)
{
	size_t i;

	for (i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/*
 * Run argv (argv[0] "getrichacl"/"setrichacl" runs the built tool under that
 * name, an absolute argv[0] runs that program) in the current directory,
 * with input (or /dev/null) on stdin.
 */
static struct result run_to(bool emulated, const char *input, const char *const argv[],
			    const char *stdout_path)
{
	char *out_path = xasprintf("%s/stdout", work_root);
	char *err_path = xasprintf("%s/stderr", work_root);
	char *in_path = xasprintf("%s/stdin", work_root);
	char *prog = argv[0][0] == '/' ? xasprintf("%s", argv[0])
				       : xasprintf("%s/%s", tools_dir, argv[0]);
	posix_spawn_file_actions_t fa;
	struct result res;
	char **env = child_env(emulated);
	pid_t pid;
	int status;

	write_file(in_path, input ? input : "");
	assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
	posix_spawn_file_actions_addopen(&fa, 0, in_path, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, stdout_path ? stdout_path : out_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(posix_spawn(&pid, prog, &fa, NULL, (char *const *)argv, env), 0);
	posix_spawn_file_actions_destroy(&fa);
	free_env(env);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	res.status = WEXITSTATUS(status);
	res.out = stdout_path ? strdup("") : slurp(out_path);
	res.err = slurp(err_path);
	free(out_path);
	free(err_path);
	free(in_path);
	free(prog);
	return res;
}

static struct result run(bool emulated, const char *input, const char *const argv[])
{
	return run_to(emulated, input, argv, NULL);
}

static void check_result(struct result res, int status, const char *out, const char *err)
{
	if (out)
		assert_string_equal(res.out, out);
	if (err)
		assert_string_equal(res.err, err);
	assert_int_equal(res.status, status);
	free(res.out);
	free(res.err);
}

static void check_run(bool emulated, const char *const argv[], int status, const char *out,
		      const char *err)
{
	check_result(run(emulated, NULL, argv), status, out, err);
}

/* a command that must succeed silently */
static void ok_run(bool emulated, const char *const argv[])
{
	check_run(emulated, argv, 0, "", "");
}

#define PLAIN(status, out, err, ...) check_run(false, ARGV(__VA_ARGS__), status, out, err)
#define EMUL(status, out, err, ...) check_run(true, ARGV(__VA_ARGS__), status, out, err)
#define PLAIN_OK(...) ok_run(false, ARGV(__VA_ARGS__))
#define EMUL_OK(...) ok_run(true, ARGV(__VA_ARGS__))

static const char usage_get[] =
	"SYNOPSIS: getrichacl [options] file ...\n"
	"Try 'getrichacl --help' for more information.\n";
static const char usage_set[] =
	"SYNOPSIS: setrichacl {options} file ...\n"
	"Try 'setrichacl --help' for more information.\n";

/* ---- setup ---- */

/* the directory part of path (a new string) */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return xasprintf("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

/* compile the shim with the library sources (when waf did not build it) */
static int build_shim(void)
{
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	char *pattern = xasprintf("%s/mapping/src/*.c", src_dir);
	char *cmd, *next;
	glob_t g;
	size_t i;
	int ret;

	shim_path = xasprintf("%s/fake_richacl_fs.so", work_root);
	ret = glob(pattern, 0, NULL, &g);
	free(pattern);
	if (ret != 0)
		return -1;
	cmd = xasprintf("%s -shared -fPIC -O1 -std=gnu11 -D_GNU_SOURCE -I%s/mapping/include "
			"-o %s %s/mapping/tests/fake_richacl_fs.c -Wl,-Bsymbolic",
			cc, src_dir, shim_path, src_dir);
	for (i = 0; i < g.gl_pathc; i++) {
		next = xasprintf("%s %s", cmd, g.gl_pathv[i]);
		free(cmd);
		cmd = next;
	}
	globfree(&g);
	ret = system(cmd);
	free(cmd);
	return ret == 0 ? 0 : -1;
}

static int group_setup(void **state)
{
	char exe[PATH_MAX], *build_tests, *build, *top, *path;
	const char *env;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	build_tests = dir_of(exe);
	build = dir_of(build_tests);
	top = dir_of(build);
	env = getenv("RICHACL_TOOLS_DIR");
	tools_dir = xasprintf("%s", env ? env : build);
	env = getenv("RICHACL_SRCDIR");
	src_dir = xasprintf("%s", env ? env : top);
	free(build_tests);
	free(build);
	free(top);

	path = xasprintf("%s/getrichacl", tools_dir);
	n = access(path, X_OK);
	free(path);
	if (n != 0) {
		fprintf(stderr, "test_tools: no tools in %s (set RICHACL_TOOLS_DIR)\n", tools_dir);
		return -1;
	}
	work_root = xasprintf("%s/tests/test_tools.XXXXXX", tools_dir);
	if (!mkdtemp(work_root))
		return -1;

	env = getenv("RICHACL_FAKE_FS");
	path = xasprintf("%s/tests/libfake_richacl_fs.so", tools_dir);
	if (env) {
		shim_path = xasprintf("%s", env);
	} else if (access(path, R_OK) == 0) {
		shim_path = xasprintf("%s", path);
	} else if (build_shim() != 0) {
		fprintf(stderr, "test_tools: cannot build the fake richacl fs shim\n");
		free(path);
		return -1;
	}
	free(path);
	umask(022);
	return 0;
}

static int group_teardown(void **state)
{
	if (chdir("/") == 0)
		remove_tree(work_root);
	free(tools_dir);
	free(src_dir);
	free(shim_path);
	free(work_root);
	return 0;
}

/* every test runs in a fresh, empty directory */
static int test_setup(void **state)
{
	char *dir = xasprintf("%s/t%u", work_root, ++test_counter);
	int ret = mkdir(dir, 0755) != 0 || chdir(dir) != 0 ? -1 : 0;

	free(dir);
	return ret;
}

static int test_teardown(void **state)
{
	char *dir = xasprintf("%s/t%u", work_root, test_counter);
	int ret = chdir(work_root);

	if (ret == 0)
		remove_tree(dir);
	free(dir);
	return ret;
}

/* the f (0644) and d (0755) of the observed examples */
static void make_f_d(void)
{
	make_file("f", 0644);
	make_dir("d", 0755);
}

/* ======== getrichacl on a filesystem without richacls (7.3) ======== */

static const char plain_f[] =
	"f:\n"
	"    owner@:rwp----------::allow\n"
	" everyone@:r------------::allow\n"
	"\n";
static const char plain_d[] =
	"d:\n"
	"    owner@:rwpxd--------::allow\n"
	" everyone@:r--x---------::allow\n"
	"\n";

/* M1: no acl -> the acl equivalent to the mode, masks applied, aligned */
static void test_get_plain_default_M1(void **state)
{
	char both[sizeof(plain_f) + sizeof(plain_d)];

	make_f_d();
	snprintf(both, sizeof(both), "%s%s", plain_f, plain_d);
	PLAIN(0, both, "", "getrichacl", "f", "d");
}

static void test_get_plain_long(void **state)
{
	make_f_d();
	PLAIN(0,
	      "f:\n"
	      "    owner@:read_data/write_data/append_data::allow\n"
	      " everyone@:read_data::allow\n"
	      "\n"
	      "d:\n"
	      "    owner@:list_directory/add_file/add_subdirectory/execute/delete_child::allow\n"
	      " everyone@:list_directory/execute::allow\n"
	      "\n", "", "getrichacl", "--long", "f", "d");
	/* -l is --long */
	PLAIN(0,
	      "f:\n"
	      "    owner@:read_data/write_data/append_data::allow\n"
	      " everyone@:read_data::allow\n"
	      "\n", "", "getrichacl", "-l", "f");
}

static void test_get_plain_full(void **state)
{
	make_f_d();
	PLAIN(0,
	      "f:\n"
	      "    owner@:rwp-------------::allow\n"
	      " everyone@:r---------------::allow\n"
	      "\n", "", "getrichacl", "--full", "f");
}

static void test_get_plain_raw(void **state)
{
	make_f_d();
	PLAIN(0,
	      "f:\n"
	      "     owner:rwp-------------::mask\n"
	      "     group:r---------------::mask\n"
	      "     other:r---------------::mask\n"
	      "    owner@:rwp-------------::allow\n"
	      " everyone@:r---------------::allow\n"
	      "\n"
	      "d:\n"
	      "     owner:rwpxd-----------::mask\n"
	      "     group:r--x------------::mask\n"
	      "     other:r--x------------::mask\n"
	      "    owner@:rwpxd-----------::allow\n"
	      " everyone@:r--x------------::allow\n"
	      "\n", "", "getrichacl", "--raw", "f", "d");
}

static void test_get_plain_unaligned(void **state)
{
	make_f_d();
	PLAIN(0,
	      "f:\n"
	      "owner@:rwp::allow\n"
	      "everyone@:r::allow\n"
	      "\n"
	      "d:\n"
	      "owner@:rwpxd::allow\n"
	      "everyone@:rx::allow\n"
	      "\n", "", "getrichacl", "--unaligned", "f", "d");
}

static void test_get_plain_raw_long(void **state)
{
	make_f_d();
	PLAIN(0,
	      "d:\n"
	      "     owner:list_directory/add_file/add_subdirectory/execute/delete_child::mask\n"
	      "     group:list_directory/execute::mask\n"
	      "     other:list_directory/execute::mask\n"
	      "    owner@:list_directory/add_file/add_subdirectory/execute/delete_child::allow\n"
	      " everyone@:list_directory/execute::allow\n"
	      "\n", "", "getrichacl", "--raw", "--long", "d");
}

/* mode 000: the empty acl prints the header and a blank line only */
static void test_get_plain_empty_acl(void **state)
{
	make_file("z", 0);
	PLAIN(0, "z:\n\n", "", "getrichacl", "z");
	PLAIN(0,
	      "z:\n"
	      " owner:----------------::mask\n"
	      " group:----------------::mask\n"
	      " other:----------------::mask\n"
	      "\n", "", "getrichacl", "--raw", "z");
}

static void test_get_posix_acl_refused(void **state)
{
	make_file("pa", 0644);
	set_posix_acl("pa", "system.posix_acl_access");
	PLAIN(1, "", "pa: File has a posix acl\n", "getrichacl", "pa");
	PLAIN(1, "", "pa: File has a posix acl\n", "getrichacl", "--access", "pa");
	/* a directory with only a default acl has a POSIX acl too */
	make_dir("pd", 0755);
	set_posix_acl("pd", "system.posix_acl_default");
	PLAIN(1, "", "pd: File has a posix acl\n", "getrichacl", "pd");
}

/* an error names the file, the other files are still shown, status 1 */
static void test_get_missing_file_continues(void **state)
{
	make_f_d();
	PLAIN(1, plain_f, "nofile: No such file or directory\n", "getrichacl", "nofile", "f");
	PLAIN(1, "", "nofile: No such file or directory\n", "getrichacl", "--access", "nofile");
}

static void test_get_usage_errors(void **state)
{
	make_f_d();
	PLAIN(1, "", usage_get, "getrichacl");
	PLAIN(1, "", usage_get, "getrichacl", "--raw");
	PLAIN(1, "", "getrichacl: unrecognized option '--bogus'\n"
	      "SYNOPSIS: getrichacl [options] file ...\n"
	      "Try 'getrichacl --help' for more information.\n", "getrichacl", "--bogus", "f");
	PLAIN(1, "", "getrichacl: invalid option -- 'x'\n"
	      "SYNOPSIS: getrichacl [options] file ...\n"
	      "Try 'getrichacl --help' for more information.\n", "getrichacl", "-x", "f");
	PLAIN(1, "", "getrichacl: option '--raw' doesn't allow an argument\n"
	      "SYNOPSIS: getrichacl [options] file ...\n"
	      "Try 'getrichacl --help' for more information.\n", "getrichacl", "--raw=1", "f");
}

/* output that cannot be written is an error, not a silent success */
static void test_get_write_error(void **state)
{
	make_f_d();
	check_result(run_to(false, NULL, ARGV("getrichacl", "f", "d"), "/dev/full"), 1, NULL,
		     "getrichacl: No space left on device\n");
	check_result(run_to(false, NULL, ARGV("getrichacl", "--access", "f"), "/dev/full"), 1,
		     NULL, "getrichacl: No space left on device\n");
	check_result(run_to(false, NULL, ARGV("getrichacl", "--version"), "/dev/full"), 1,
		     NULL, "getrichacl: No space left on device\n");
	check_result(run_to(false, NULL, ARGV("setrichacl", "--help"), "/dev/full"), 1,
		     NULL, "setrichacl: No space left on device\n");
}

static void check_version_and_help(const char *tool, const char *synopsis)
{
	const char *const version_args[][3] = { { tool, "--version", NULL }, { tool, "-v", NULL } };
	const char *const help_args[][3] = { { tool, "--help", NULL }, { tool, "-h", NULL } };
	size_t prefix = strlen(tool);
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct result r = run(false, NULL, version_args[i]);

		/* "<tool> <version>" on one line */
		assert_int_equal(strncmp(r.out, tool, prefix), 0);
		assert_int_equal(r.out[prefix], ' ');
		assert_true(strlen(r.out) > prefix + 2);
		assert_ptr_equal(strchr(r.out, '\n'), r.out + strlen(r.out) - 1);
		check_result(r, 0, NULL, "");

		r = run(false, NULL, help_args[i]);
		assert_int_equal(strncmp(r.out, synopsis, strlen(synopsis)), 0);
		check_result(r, 0, NULL, "");
	}
}

static void test_get_version_help(void **state)
{
	check_version_and_help("getrichacl", "SYNOPSIS: getrichacl [options] file ...\n");
}

/* 6.4 on the mode-equivalent acl: f 0644, z 0000 */
static void test_get_plain_access(void **state)
{
	make_f_d();
	make_file("z", 0);
	/* the current process owns f: owner@ grants rwp */
	PLAIN(0, "rwp----------  f\n", "", "getrichacl", "--access", "f");
	PLAIN(0, "rwp----------  f\n", "", "getrichacl", "-a", "f");
	PLAIN(0, "r------------  f\n", "", "getrichacl", "--access=daemon", "f");
	PLAIN(0, "r------------  f\n", "", "getrichacl", "-adaemon", "f");
	PLAIN(0, "read_data  f\n", "", "getrichacl", "--access=2000:", "--long", "f");
	PLAIN(0, "r  f\n", "", "getrichacl", "--access=2000", "--unaligned", "f");
	PLAIN(0, "r---------------  f\n", "", "getrichacl", "--access=2000", "--full", "f");
	PLAIN(0, "-  z\n", "", "getrichacl", "--access=7:", "--unaligned", "z");
	PLAIN(0, "-------------  z\n", "", "getrichacl", "--access=7:", "z");
}

/* 6.4 with a long group list (the original lost groups beyond 32) */
static void test_get_access_many_groups(void **state)
{
	struct stat st;
	char *arg, *next;
	unsigned int i;

	make_file("g", 0640);
	assert_int_equal(stat("g", &st), 0);
	arg = xasprintf("--access=2000");
	for (i = 0; i < 39; i++) {
		next = xasprintf("%s:%u", arg, 70000 + i);
		free(arg);
		arg = next;
	}
	/* without the owning group: other class, mode 0640 grants nothing */
	PLAIN(0, "-------------  g\n", "", "getrichacl", arg, "g");
	next = xasprintf("%s:%u", arg, (unsigned int)st.st_gid);
	free(arg);
	arg = next;
	PLAIN(0, "r------------  g\n", "", "getrichacl", arg, "g");
	free(arg);
}

static void test_get_access_errors(void **state)
{
	make_f_d();
	PLAIN(1, "", "nosuch: No such user\n", "getrichacl", "--access=nosuch", "f");
	PLAIN(1, "", "nosuch: No such group\n", "getrichacl", "--access=2000:nosuch", "f");
	PLAIN(1, "", "nosuch: No such group\n", "getrichacl", "--access=daemon:adm:nosuch", "f");
}

/* ======== setrichacl on a filesystem without richacls (7.4) ======== */

static void test_set_plain_not_equivalent_refused(void **state)
{
	make_f_d();
	/* w without p has no mode equivalent: refused, nothing changes */
	PLAIN(1, "", "f: Operation not supported\n", "setrichacl", "--set", "owner@:rw::allow", "f");
	assert_int_equal(file_mode("f"), 0644);
}

/* M1/M12 the other way round: an equivalent acl becomes the mode */
static void test_set_plain_equivalent_chmod(void **state)
{
	make_f_d();
	PLAIN_OK("setrichacl", "--set", "owner@:rwp::allow group@:r::allow", "f");
	assert_int_equal(file_mode("f"), 0640);
	PLAIN_OK("setrichacl", "-s", "owner@:rwp::allow", "f");
	assert_int_equal(file_mode("f"), 0600);
}

static void test_modify_plain(void **state)
{
	make_file("f", 0640);
	PLAIN_OK("setrichacl", "--modify", "everyone@:r::allow", "f");
	assert_int_equal(file_mode("f"), 0644);
	PLAIN(1, "", "f: Operation not supported\n", "setrichacl", "--modify",
	      "user:daemon:r::allow", "f");
	assert_int_equal(file_mode("f"), 0644);
	PLAIN_OK("setrichacl", "--modify", "everyone@:::allow", "f");
	assert_int_equal(file_mode("f"), 0600);
	assert_int_equal(chmod("f", 0644), 0);
	PLAIN_OK("setrichacl", "--modify", "group@:r::allow", "f");
	assert_int_equal(file_mode("f"), 0644);
	PLAIN_OK("setrichacl", "-m", "owner@:rwpx::allow", "f");
	assert_int_equal(file_mode("f"), 0744);
}

static void test_modify_plain_dir_and_suid(void **state)
{
	make_dir("d", 0640);
	/* on a directory write needs d as well */
	PLAIN(1, "", "d: Operation not supported\n", "setrichacl", "--modify",
	      "owner@:rwp::allow", "d");
	assert_int_equal(file_mode("d"), 0640);

	make_file("z", 04755);
	PLAIN(1, "", "z: Operation not supported\n", "setrichacl", "--modify",
	      "group@:r::deny", "z");
	assert_int_equal(file_mode("z"), 04755);
	/* setuid is kept by the chmod fallback */
	PLAIN_OK("setrichacl", "--set", "owner@:rwpx::allow,everyone@:rx::allow", "z");
	assert_int_equal(file_mode("z"), 04755);
}

static void test_remove_plain_unsupported(void **state)
{
	make_f_d();
	PLAIN(1, "", "f: Operation not supported\nd: Operation not supported\n",
	      "setrichacl", "--remove", "f", "d");
	PLAIN(1, "", "f: Operation not supported\n", "setrichacl", "-b", "f");
}

static void test_set_missing_file_continues(void **state)
{
	make_file("f", 0644);
	PLAIN(1, "", "nofile: No such file or directory\n",
	      "setrichacl", "--set", "owner@:rwp::allow", "f", "nofile", "f");
	assert_int_equal(file_mode("f"), 0600);
	PLAIN(1, "", "nofile: No such file or directory\n",
	      "setrichacl", "--modify", "owner@:rwp::allow", "nofile");
}

/* the text is parsed before any file is touched; errors give the column */
static void test_set_parse_errors(void **state)
{
	make_file("f", 0644);
	PLAIN(1, "", "Invalid entry 'foo' (column 1)\n", "setrichacl", "--set", "foo", "f");
	PLAIN(1, "", "Invalid access mask 'rz' (column 29)\n", "setrichacl", "--set",
	      "owner@:rwp::allow everyone@:rz::allow", "f");
	PLAIN(1, "", "Invalid entry type 'maybe' (column 14)\n", "setrichacl", "--modify",
	      "everyone@:r::maybe", "f");
	PLAIN(1, "", "User 'nosuchuser' does not exist (column 6)\n", "setrichacl", "--set",
	      "user:nosuchuser:r::allow", "f");
	PLAIN(1, "", "Group 'nosuchgroup' does not exist (column 7)\n", "setrichacl", "--set",
	      "group:nosuchgroup:r::allow", "f");
	/* nothing was touched, not even the files before the bad one */
	assert_int_equal(file_mode("f"), 0644);
}

/* syntactically fine but not a valid acl (type 5): refused before any file */
static void test_set_invalid_acl_refused(void **state)
{
	struct result r;

	make_file("f", 0644);
	r = run(false, NULL, ARGV("setrichacl", "--set", "owner@:rwp::allow everyone@:r::5", "f"));
	assert_string_not_equal(r.err, "");
	assert_null(strstr(r.err, "f: "));
	check_result(r, 1, "", NULL);
	assert_int_equal(file_mode("f"), 0644);
}

static void test_set_posix_acl_refused(void **state)
{
	make_file("pa", 0644);
	set_posix_acl("pa", "system.posix_acl_access");
	PLAIN(1, "", "pa: File has a posix acl\n", "setrichacl", "--set", "owner@:rw::allow", "pa");
	/* also an equivalent acl: chmod would only change the POSIX acl's mask */
	PLAIN(1, "", "pa: File has a posix acl\n", "setrichacl", "--set", "owner@:rwp::allow", "pa");
	PLAIN(1, "", "pa: File has a posix acl\n", "setrichacl", "--modify",
	      "everyone@:::allow", "pa");
	assert_int_equal(file_mode("pa"), 0644);
	assert_true(getxattr("pa", "system.posix_acl_access", NULL, 0) > 0);
}

static void test_set_file_sources(void **state)
{
	make_file("f", 0644);
	check_result(run(false, "owner@:rwp::allow\n", ARGV("setrichacl", "--set-file", "-", "f")),
		      0, "", "");
	assert_int_equal(file_mode("f"), 0600);

	/* a real file works (the original failed with "acl.txt: Success") */
	write_file("acl.txt", "owner@:rwp::allow everyone@:r::allow\n");
	PLAIN_OK("setrichacl", "--set-file", "acl.txt", "f");
	assert_int_equal(file_mode("f"), 0644);

	/* getrichacl output can be fed back: the "name:" header is skipped */
	write_file("acl.txt", "other:\n    owner@:rwp----------::allow\n group@:r------------::allow\n");
	PLAIN_OK("setrichacl", "-S", "acl.txt", "f");
	assert_int_equal(file_mode("f"), 0640);

	write_file("acl.txt", "everyone@:r::allow\n");
	PLAIN_OK("setrichacl", "--modify-file", "acl.txt", "f");
	assert_int_equal(file_mode("f"), 0644);
	/* 7.4: removing everyone@ from the 0644 acl leaves 0600 */
	check_result(run(false, "everyone@:::allow", ARGV("setrichacl", "-M", "-", "f")), 0, "", "");
	assert_int_equal(file_mode("f"), 0600);
}

static void test_set_file_errors(void **state)
{
	make_file("f", 0644);
	make_dir("d", 0755);
	PLAIN(1, "", "nonexist: No such file or directory\n",
	      "setrichacl", "--set-file", "nonexist", "f");
	PLAIN(1, "", "nonexist: No such file or directory\n",
	      "setrichacl", "--modify-file", "nonexist", "f");
	/* a read error is noticed (reading a directory fails with EISDIR) */
	PLAIN(1, "", "d: Is a directory\n", "setrichacl", "--set-file", "d", "f");
	/* parse errors in a file give line and column */
	write_file("acl.txt", "f:\nowner@:rwp::allow\n  everyone@:rz::allow\n");
	PLAIN(1, "", "Invalid access mask 'rz' (line 3, column 13)\n",
	      "setrichacl", "--set-file", "acl.txt", "f");
	/* a header that is not a getrichacl header is an error like any entry */
	write_file("acl.txt", "a::\nowner@:rwp::allow\n");
	PLAIN(1, "", "Invalid entry 'a::' (line 1, column 1)\n",
	      "setrichacl", "--set-file", "acl.txt", "f");
	/* text with a NUL byte is refused rather than cut short */
	{
		FILE *fp = fopen("nul.txt", "w");

		assert_non_null(fp);
		fwrite("owner@:rwp::allow\0everyone@:rwpx::allow\n", 1, 41, fp);
		fclose(fp);
	}
	PLAIN(1, "", "nul.txt: Text contains a NUL byte\n", "setrichacl", "-S", "nul.txt", "f");
	assert_int_equal(file_mode("f"), 0644);
}

static void test_set_usage_errors(void **state)
{
	make_file("f", 0644);
	PLAIN(1, "", usage_set, "setrichacl");
	PLAIN(1, "", usage_set, "setrichacl", "--set", "owner@:rwp::allow");
	/* the original printed the help on stdout and exited 0 here */
	PLAIN(1, "", usage_set, "setrichacl", "f");
	PLAIN(1, "", usage_set, "setrichacl", "--set", "owner@:rwp::allow", "--modify",
	      "owner@:rwp::allow", "f");
	PLAIN(1, "", usage_set, "setrichacl", "--set", "owner@:rwp::allow", "--set",
	      "owner@:r::allow", "f");
	PLAIN(1, "", usage_set, "setrichacl", "-s", "owner@:rwp::allow", "-S", "-", "f");
	PLAIN(1, "", usage_set, "setrichacl", "--remove", "--modify", "owner@:rwp::allow", "f");
	PLAIN(1, "", "setrichacl: unrecognized option '--bogus'\n"
	      "SYNOPSIS: setrichacl {options} file ...\n"
	      "Try 'setrichacl --help' for more information.\n", "setrichacl", "--bogus", "f");
	PLAIN(1, "", "setrichacl: option '--set' requires an argument\n"
	      "SYNOPSIS: setrichacl {options} file ...\n"
	      "Try 'setrichacl --help' for more information.\n", "setrichacl", "--set");
	PLAIN(1, "", "setrichacl: option requires an argument -- 'm'\n"
	      "SYNOPSIS: setrichacl {options} file ...\n"
	      "Try 'setrichacl --help' for more information.\n", "setrichacl", "-m");
	assert_int_equal(file_mode("f"), 0644);
}

static void test_set_version_help(void **state)
{
	check_version_and_help("setrichacl", "SYNOPSIS: setrichacl {options} file ...\n");
}

/* ======== the emulated richacl filesystem ======== */

/* the 7.3 example file f and directory d */
static void make_emulated_f_d(void)
{
	make_f_d();
	EMUL_OK("setrichacl", "--set", "owner@:rwp::allow user:daemon:r::allow group:adm:rw::deny "
		"u:1234:x::allow g:4321:r::allow everyone@:r::allow", "f");
	EMUL_OK("setrichacl", "--set", "flags:a owner@:rwpxd:fd:allow everyone@:rwp:fdi:allow "
		"user:bin:D:d:deny", "d");
}

static void test_emul_get_names(void **state)
{
	make_emulated_f_d();
	assert_true(has_stored_acl("f"));
	/* masks rwpx / rx / r */
	assert_int_equal(file_mode("f"), 0754);
	EMUL(0,
	     "f:\n"
	     "      owner@:rwp----------::allow\n"
	     " user:daemon:r------------::allow\n"
	     "   group:adm:rw-----------::deny\n"
	     "   user:1234:---x---------::allow\n"
	     "  group:4321:r------------::allow\n"
	     "   everyone@:r------------::allow\n"
	     "\n", "", "getrichacl", "f");
	EMUL(0,
	     "f:\n"
	     "     owner@:rwp----------::allow\n"
	     "     user:1:r------------::allow\n"
	     "    group:4:rw-----------::deny\n"
	     "  user:1234:---x---------::allow\n"
	     " group:4321:r------------::allow\n"
	     "  everyone@:r------------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "f");
	EMUL(0,
	     "f:\n"
	     "       owner:rwpx------------::mask\n"
	     "       group:r--x------------::mask\n"
	     "       other:r---------------::mask\n"
	     "      owner@:rwp-------------::allow\n"
	     " user:daemon:r---------------::allow\n"
	     "   group:adm:rw--------------::deny\n"
	     "   user:1234:---x------------::allow\n"
	     "  group:4321:r---------------::allow\n"
	     "   everyone@:r---------------::allow\n"
	     "\n", "", "getrichacl", "--raw", "f");
}

static void test_emul_get_directory_contexts(void **state)
{
	make_emulated_f_d();
	EMUL(0,
	     "d:\n"
	     "     flags:a\n"
	     "    owner@:rwpxd--------:fd:allow\n"
	     " everyone@:rwp----------:fdi:allow\n"
	     "  user:bin:-----D-------:d:deny\n"
	     "\n", "", "getrichacl", "d");
	EMUL(0,
	     "d:\n"
	     "     flags:auto_inherit\n"
	     "    owner@:read_data/list_directory/write_data/add_file/append_data/"
	     "add_subdirectory/execute/delete_child:file_inherit/dir_inherit:allow\n"
	     " everyone@:read_data/list_directory/write_data/add_file/append_data/"
	     "add_subdirectory:file_inherit/dir_inherit/inherit_only:allow\n"
	     "  user:bin:delete:dir_inherit:deny\n"
	     "\n", "", "getrichacl", "--long", "d");
	EMUL(0,
	     "d:\n"
	     "     flags:auto_inherit\n"
	     "     owner:read_data/list_directory/write_data/add_file/append_data/"
	     "add_subdirectory/execute/delete_child::mask\n"
	     "     group:::mask\n"
	     "     other:::mask\n"
	     "    owner@:read_data/list_directory/write_data/add_file/append_data/"
	     "add_subdirectory/execute/delete_child:file_inherit/dir_inherit:allow\n"
	     " everyone@:read_data/list_directory/write_data/add_file/append_data/"
	     "add_subdirectory:file_inherit/dir_inherit/inherit_only:allow\n"
	     "  user:bin:delete:dir_inherit:deny\n"
	     "\n", "", "getrichacl", "--long", "--raw", "d");
}

static void test_emul_access(void **state)
{
	make_emulated_f_d();
	/* h grants uid 7 nothing */
	make_file("h", 0644);
	EMUL_OK("setrichacl", "--set", "owner@:rwp::allow user:5:r::allow", "h");
	assert_true(has_stored_acl("h"));

	EMUL(0, "rwp----------  f\nrwpxd--------  d\n", "", "getrichacl", "--access", "f", "d");
	EMUL(0, "r------------  f\n", "", "getrichacl", "--access=daemon", "f");
	/* adm is denied rw before everyone@ */
	EMUL(0, "---x---------  f\n", "", "getrichacl", "--access=1234:adm", "f");
	EMUL(0, "read_data  f\n", "", "getrichacl", "--access=2000:", "--long", "f");
	EMUL(0, "r  f\n", "", "getrichacl", "--access=2000", "--unaligned", "f");
	EMUL(0, "-  h\n", "", "getrichacl", "--access=7:", "--unaligned", "h");
	EMUL(1, "", "nosuch: No such user\n", "getrichacl", "--access=nosuch", "f");
	EMUL(1, "", "nosuch: No such group\n", "getrichacl", "--access=2000:nosuch", "f");
}

/* M1 on a richacl filesystem: no stored acl (ENODATA) -> the mode's acl */
static void test_emul_no_acl_shows_mode_M1(void **state)
{
	make_f_d();
	EMUL(0, plain_f, "", "getrichacl", "f");
	EMUL(0, plain_d, "", "getrichacl", "d");
}

/* M12: the store rule and the file masks (7.4 emulated examples, 1.1) */
static void test_emul_set_masks_and_mode_M12(void **state)
{
	make_file("k", 0644);
	EMUL_OK("setrichacl", "--set", "flags:m owner:r::mask everyone@:rwp::allow", "k");
	assert_false(has_stored_acl("k"));
	assert_int_equal(file_mode("k"), 0466);

	EMUL_OK("setrichacl", "--set", "owner:rwp::mask group:r::mask other:::mask "
		"everyone@:rwp::allow", "k");
	assert_false(has_stored_acl("k"));
	assert_int_equal(file_mode("k"), 0666);

	EMUL_OK("setrichacl", "--set", "flags:mw owner:rwp::mask group:r::mask other:::mask "
		"everyone@:rwp::allow", "k");
	assert_false(has_stored_acl("k"));
	assert_int_equal(file_mode("k"), 0640);

	EMUL_OK("setrichacl", "--set", "flags:m owner:rwp::mask group:r::mask other:::mask "
		"everyone@:rwp::allow user:5:x::allow", "k");
	assert_true(has_stored_acl("k"));
	assert_int_equal(file_mode("k"), 0640);
	EMUL(0,
	     "k:\n"
	     "     flags:m\n"
	     "     owner:rwp-------------::mask\n"
	     "     group:r---------------::mask\n"
	     "     other:----------------::mask\n"
	     " everyone@:rwp-------------::allow\n"
	     "    user:5:---x------------::allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "k");
	EMUL(0,
	     "k:\n"
	     " user:5:r------------::allow\n"
	     " owner@:rwp----------::allow\n"
	     " group@:r------------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "k");

	EMUL_OK("setrichacl", "--set", "flags:w everyone@:rwp::allow user:5:x::allow", "k");
	assert_true(has_stored_acl("k"));
	assert_int_equal(file_mode("k"), 0776);
	EMUL(0,
	     "k:\n"
	     "     flags:w\n"
	     "     owner:rwpx------------::mask\n"
	     "     group:rwpx------------::mask\n"
	     "     other:rwp-------------::mask\n"
	     " everyone@:rwp-------------::allow\n"
	     "    user:5:---x------------::allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "k");

	/* 1.1: masks_to_mode is "maximum" style */
	EMUL_OK("setrichacl", "--set", "owner@:p::allow user:5:D::allow", "k");
	assert_int_equal(file_mode("k"), 0200);
	make_dir("dd", 0755);
	EMUL_OK("setrichacl", "--set", "user:5:d::allow everyone@:x::allow", "dd");
	assert_int_equal(file_mode("dd"), 0331);
	EMUL_OK("setrichacl", "--set", "flags:a user:5:rwpx::allow everyone@:r::allow", "k");
	assert_int_equal(file_mode("k"), 0774);

	/* an equivalent acl replaces a stored one by the mode alone */
	EMUL_OK("setrichacl", "--set", "owner@:rwp::allow everyone@:r::allow", "k");
	assert_false(has_stored_acl("k"));
	assert_int_equal(file_mode("k"), 0644);
}

static void test_emul_modify_first_match(void **state)
{
	make_file("g", 0644);
	EMUL_OK("setrichacl", "--set", "owner@:r::allow user:5:w::allow owner@:w::allow "
		"everyone@:x::allow", "g");
	EMUL_OK("setrichacl", "--modify", "owner@:rwpx::allow", "g");
	EMUL(0,
	     "g:\n"
	     "    owner@:rwpx---------::allow\n"
	     "    user:5:-w-----------::allow\n"
	     "    owner@:-w-----------::allow\n"
	     " everyone@:---x---------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "g");
	/* an empty mask removes every matching entry (no zero-filled leftovers) */
	EMUL_OK("setrichacl", "--modify", "owner@:::allow", "g");
	EMUL(0,
	     "g:\n"
	     "     owner:-w-x------------::mask\n"
	     "     group:-w-x------------::mask\n"
	     "     other:---x------------::mask\n"
	     "    user:5:-w--------------::allow\n"
	     " everyone@:---x------------::allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "g");
}

static void test_emul_modify_placement(void **state)
{
	make_file("g", 0644);
	EMUL_OK("setrichacl", "--set", "owner@:r::allow user:5:w::allow", "g");
	EMUL_OK("setrichacl", "--modify", "user:5:rx:fd:allow owner@:::allow user:6:r::deny "
		"owner@:w::deny", "g");
	EMUL(0,
	     "g:\n"
	     "  owner:r--x------------::mask\n"
	     "  group:r--x------------::mask\n"
	     "  other:----------------::mask\n"
	     " user:6:r---------------::deny\n"
	     " owner@:-w--------------::deny\n"
	     " user:5:r--x------------:fd:allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "g");

	/* a given mask is kept, the others are computed; flags as given */
	EMUL_OK("setrichacl", "--set", "owner@:r::allow user:5:w::allow", "g");
	EMUL_OK("setrichacl", "--modify", "owner:rwx::mask flags:p", "g");
	EMUL(0,
	     "g:\n"
	     "  flags:p\n"
	     "  owner:rw-x------------::mask\n"
	     "  group:-w--------------::mask\n"
	     "  other:----------------::mask\n"
	     " owner@:r---------------::allow\n"
	     " user:5:-w--------------::allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "g");
	assert_int_equal(file_mode("g"), 0720);
}

/* the upstream setrichacl-modify test: where new entries land */
static void test_emul_modify_upstream_positions(void **state)
{
	static const char start[] =
		"flags:a u:101:w::deny u:101:rw::allow u:101:w:a:deny u:101:rw:a:allow";
	static const struct {
		const char *mod;
		const char *expected;
	} cases[] = {
		{ "u:202:w::deny",
		  "f:\nflags:a\nuser:101:w::deny\nuser:202:w::deny\nuser:101:rw::allow\n"
		  "user:101:w:a:deny\nuser:101:rw:a:allow\n\n" },
		{ "u:202:rw::allow",
		  "f:\nflags:a\nuser:101:w::deny\nuser:101:rw::allow\nuser:202:rw::allow\n"
		  "user:101:w:a:deny\nuser:101:rw:a:allow\n\n" },
		{ "u:202:w:a:deny",
		  "f:\nflags:a\nuser:101:w::deny\nuser:101:rw::allow\nuser:101:w:a:deny\n"
		  "user:202:w:a:deny\nuser:101:rw:a:allow\n\n" },
		{ "u:202:rw:a:allow",
		  "f:\nflags:a\nuser:101:w::deny\nuser:101:rw::allow\nuser:101:w:a:deny\n"
		  "user:101:rw:a:allow\nuser:202:rw:a:allow\n\n" },
	};
	unsigned int i;

	make_file("f", 0644);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EMUL_OK("setrichacl", "--set", start, "f");
		EMUL_OK("setrichacl", "--modify", cases[i].mod, "f");
		EMUL(0, cases[i].expected, "", "getrichacl", "--numeric-ids", "--unaligned", "f");
	}
}

/* 3.3: chmod rewrites the masks; getrichacl shows the effect */
static void test_emul_chmod_masks(void **state)
{
	make_file("f", 0644);
	assert_int_equal(chown("f", 0, 0), 0);
	EMUL_OK("setrichacl", "--set", "flags:a user:5:rwpx::allow everyone@:r::allow", "f");
	assert_int_equal(file_mode("f"), 0774);
	EMUL_OK("/bin/chmod", "640", "f");
	assert_int_equal(file_mode("f"), 0640);
	EMUL(0,
	     "f:\n"
	     "     flags:mwap\n"
	     "     owner:rwp-------------::mask\n"
	     "     group:r---------------::mask\n"
	     "     other:----------------::mask\n"
	     "    user:5:rwpx------------::allow\n"
	     " everyone@:r---------------::allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "f");
	EMUL(0,
	     "f:\n"
	     "  flags:ap\n"
	     " user:5:r------------::allow\n"
	     " owner@:rwp----------::allow\n"
	     " group@:r------------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "f");
	/* 6.4 on that file (owner 0, group 0) */
	EMUL(0, "rwp----------  f\n", "", "getrichacl", "--access=0", "f");
	EMUL(0, "r------------  f\n", "", "getrichacl", "--access=5", "f");
	EMUL(0, "-------------  f\n", "", "getrichacl", "--access=6", "f");
	EMUL(0, "r------------  f\n", "", "getrichacl", "--access=6:0", "f");

	make_dir("d", 0755);
	EMUL_OK("setrichacl", "--set", "user:5:rwpxd:fd:allow owner@:rwpxd::allow", "d");
	EMUL_OK("/bin/chmod", "711", "d");
	EMUL(0,
	     "d:\n"
	     "    user:5:rwpxd--------:fdi:allow\n"
	     "    user:5:---x---------::allow\n"
	     "    owner@:rwpxd--------::allow\n"
	     "    group@:---x---------::deny\n"
	     " everyone@:---x---------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "d");
}

static void test_emul_remove(void **state)
{
	make_file("f", 0644);
	EMUL_OK("setrichacl", "--set", "owner@:rwp::allow user:5:r::allow", "f");
	assert_true(has_stored_acl("f"));
	EMUL_OK("setrichacl", "--remove", "f");
	assert_false(has_stored_acl("f"));
	/* nothing stored: still success */
	EMUL_OK("setrichacl", "-b", "f");
	EMUL(1, "", "nofile: No such file or directory\n", "setrichacl", "--remove", "nofile");
}

/* 5.4: setting an auto_inherit acl on a directory updates its children */
static void test_emul_auto_inheritance(void **state)
{
	make_dir("p", 0755);
	make_dir("p/c1", 0755);
	make_dir("p/c2", 0755);
	make_dir("p/c3", 0755);
	make_dir("p/c4", 0755);
	make_file("p/f1", 0644);
	assert_int_equal(symlink("c2", "p/link"), 0);
	EMUL_OK("setrichacl", "--set", "flags:ad user:7:r::allow owner@:rwpxd::allow", "p/c1");
	EMUL_OK("setrichacl", "--set", "flags:a user:7:r::allow user:8:w:a:allow "
		"owner@:rwpxd::allow", "p/c2");
	EMUL_OK("setrichacl", "--set", "flags:ap user:7:r::allow owner@:rwpxd::allow", "p/c3");
	EMUL_OK("setrichacl", "--set", "user:7:r::allow owner@:rwpxd::allow", "p/c4");
	EMUL_OK("setrichacl", "--set", "flags:a user:7:r::allow owner@:rwp::allow", "p/f1");

	EMUL_OK("setrichacl", "--set", "flags:a owner@:rwpxd::allow user:9:rx:fd:allow "
		"everyone@:r:f:allow", "p");

	/* defaulted: replaced by the inherited entries */
	EMUL(0,
	     "p/c1:\n"
	     "     flags:a\n"
	     "     owner:r--x------------::mask\n"
	     "     group:r--x------------::mask\n"
	     "     other:----------------::mask\n"
	     "    user:9:r--x------------:fda:allow\n"
	     " everyone@:r---------------:fia:allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "p/c1");
	/* own entries first, the old inherited user:8 entry dropped */
	EMUL(0,
	     "p/c2:\n"
	     "     flags:a\n"
	     "     owner:rwpxd-----------::mask\n"
	     "     group:r--x------------::mask\n"
	     "     other:----------------::mask\n"
	     "    user:7:r---------------::allow\n"
	     "    owner@:rwpxd-----------::allow\n"
	     "    user:9:r--x------------:fda:allow\n"
	     " everyone@:r---------------:fia:allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "p/c2");
	/* protected and non-auto-inherit children are left alone */
	EMUL(0,
	     "p/c3:\n"
	     "  flags:ap\n"
	     " user:7:r------------::allow\n"
	     " owner@:rwpxd--------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "p/c3");
	EMUL(0,
	     "p/c4:\n"
	     " user:7:r------------::allow\n"
	     " owner@:rwpxd--------::allow\n"
	     "\n", "", "getrichacl", "--numeric-ids", "p/c4");
	EMUL(0,
	     "p/f1:\n"
	     "     flags:a\n"
	     "     owner:rwpx------------::mask\n"
	     "     group:r--x------------::mask\n"
	     "     other:r---------------::mask\n"
	     "    user:7:r---------------::allow\n"
	     "    owner@:rwp-------------::allow\n"
	     "    user:9:r--x------------:a:allow\n"
	     " everyone@:r---------------:a:allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "p/f1");
}

/* 5.4: propagation reports a child it cannot read, and goes on */
static void test_emul_propagation_errors(void **state)
{
	static const unsigned char garbage[] = { 1, 2, 3 };

	make_dir("p", 0755);
	make_dir("p/bad", 0755);
	make_file("p/good", 0644);
	EMUL_OK("setrichacl", "--set", "flags:a owner@:rwp::allow user:5:r::allow", "p/good");
	assert_int_equal(setxattr("p/bad", FAKE_STORE, garbage, sizeof(garbage), 0), 0);
	EMUL(1, "", "p/bad: Invalid argument\n", "setrichacl", "--set",
	     "flags:a owner@:rwpxd::allow everyone@:r:f:allow", "p");
	/* the good child was updated all the same */
	EMUL(0,
	     "p/good:\n"
	     "flags:a\n"
	     "owner:rwp::mask\n"
	     "group:r::mask\n"
	     "other:r::mask\n"
	     "owner@:rwp::allow\n"
	     "user:5:r::allow\n"
	     "everyone@:r:a:allow\n"
	     "\n", "", "getrichacl", "--raw", "--numeric-ids", "--unaligned", "p/good");
}

/* a corrupt stored value is reported, never shown or modified */
static void test_emul_corrupt_acl(void **state)
{
	static const unsigned char garbage[] = { 1, 0, 0, 0 };

	make_file("f", 0644);
	assert_int_equal(setxattr("f", FAKE_STORE, garbage, sizeof(garbage), 0), 0);
	EMUL(1, "", "f: Invalid argument\n", "getrichacl", "f");
	EMUL(1, "", "f: Invalid argument\n", "getrichacl", "--access", "f");
	EMUL(1, "", "f: Invalid argument\n", "setrichacl", "--modify", "everyone@:r::allow", "f");
	assert_int_equal(getxattr("f", FAKE_STORE, NULL, 0), (ssize_t)sizeof(garbage));
}

/* ---- random round trip through the tools ---- */

static uint32_t rng_next(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static uint32_t random_mask(uint32_t *rng)
{
	static const uint32_t common[] = { 0x1, 0x7, 0x21, 0x67, 0x27, 0x46, 0x0 };

	if (rng_next(rng) % 2)
		return common[rng_next(rng) % (sizeof(common) / sizeof(common[0]))];
	return rng_next(rng) & RICHACE_VALID_MASK;
}

static struct richacl *random_acl(uint32_t *rng)
{
	static const uint32_t ids[] = { 0, 5, 1234, 65534, 4294967294u };
	unsigned int count = rng_next(rng) % 8, i;
	struct richacl *acl = richacl_alloc(0);

	assert_non_null(acl);
	acl->a_flags = rng_next(rng) % 3 ? 0 : (uint8_t)(rng_next(rng) & RICHACL_VALID_FLAGS);
	acl->a_owner_mask = random_mask(rng);
	acl->a_group_mask = random_mask(rng);
	acl->a_other_mask = random_mask(rng);
	for (i = 0; i < count; i++) {
		struct richace ace = { 0 };
		uint32_t who = rng_next(rng) % 8;
		char name[32];

		ace.e_type = rng_next(rng) % 3 ? RICHACE_ACCESS_ALLOWED_ACE_TYPE
					       : RICHACE_ACCESS_DENIED_ACE_TYPE;
		ace.e_mask = random_mask(rng);
		if (rng_next(rng) % 3 == 0)
			ace.e_flags = (uint16_t)(rng_next(rng) & RICHACE_INHERITANCE_FLAGS);
		if (who < 3) {
			richace_set_special(&ace, who);
		} else if (who < 5) {
			richace_set_uid(&ace, ids[rng_next(rng) % 5]);
		} else if (who < 7) {
			richace_set_gid(&ace, ids[rng_next(rng) % 5]);
		} else {
			snprintf(name, sizeof(name), "S-1-5-21-1-2-%u", rng_next(rng) % 1000);
			assert_int_equal(richace_set_unmapped(&ace, name, rng_next(rng) % 2), 0);
		}
		assert_int_equal(richacl_append_entry(acl, &ace), 0);
		free(ace.e_who);
	}
	return acl;
}

static char *expected_output(const char *name, const struct richacl *acl, unsigned int fmt)
{
	char *text = richacl_to_text(acl, fmt, NULL), *out;

	assert_non_null(text);
	out = malloc(strlen(name) + strlen(text) + 4);
	assert_non_null(out);
	sprintf(out, "%s:\n%s\n", name, text);
	free(text);
	return out;
}

/* one random acl: --set text -> store -> getrichacl --raw and default */
static void round_trip_one(uint32_t *rng, unsigned int n)
{
	const char *name = n % 3 ? "f" : "d";
	bool isdir = n % 3 == 0;
	struct richacl *acl = random_acl(rng), *expected, *view;
	bool give_masks = rng_next(rng) % 4 != 0;
	unsigned int ctx = isdir ? RICHACL_TEXT_DIRECTORY_CONTEXT : RICHACL_TEXT_FILE_CONTEXT;
	char *text, *out;
	struct stat st;
	mode_t mode;

	if (isdir)
		make_dir(name, 0755);
	else
		make_file(name, 0644);
	text = richacl_to_text(acl, RICHACL_TEXT_NUMERIC_IDS |
			       (give_masks ? RICHACL_TEXT_SHOW_MASKS : 0), NULL);
	assert_non_null(text);
	expected = richacl_clone(acl);
	assert_non_null(expected);
	if (!give_masks) {
		/* 7.4: masks not given are the maximum masks, flags as given */
		richacl_compute_max_masks(expected);
		expected->a_flags = acl->a_flags;
	}

	EMUL_OK("setrichacl", "--set", text, name);

	assert_int_equal(stat(name, &st), 0);
	mode = (isdir ? S_IFDIR : S_IFREG) | 0755;
	view = stored_acl(name);
	if (view) {
		/* stored: the acl as set; the mode follows its masks */
		if (!richacl_equal(view, expected))
			fail_msg("acl %u: stored acl differs from '%s'", n, text);
		assert_int_equal(richacl_equiv_mode(expected, &mode), -1);
		assert_int_equal(st.st_mode & 0777, richacl_masks_to_mode(expected));
	} else {
		/* M12: equivalent -> stored as the mode alone */
		if (richacl_equiv_mode(expected, &mode) != 0)
			fail_msg("acl %u: '%s' was not stored", n, text);
		assert_int_equal(st.st_mode & 07777, mode & 07777);
		view = richacl_from_mode(st.st_mode);
		assert_non_null(view);
	}

	out = expected_output(name, view, RICHACL_TEXT_SHOW_MASKS | RICHACL_TEXT_ALIGN |
			      RICHACL_TEXT_NUMERIC_IDS | ctx);
	EMUL(0, out, "", "getrichacl", "--raw", "--numeric-ids", name);
	free(out);

	assert_int_equal(richacl_apply_masks(&view, st.st_uid), 0);
	out = expected_output(name, view, RICHACL_TEXT_SIMPLIFY | RICHACL_TEXT_ALIGN |
			      RICHACL_TEXT_NUMERIC_IDS | ctx);
	EMUL(0, out, "", "getrichacl", "--numeric-ids", name);
	free(out);

	richacl_free(view);
	richacl_free(expected);
	richacl_free(acl);
	free(text);
	remove_tree(name);
}

static void test_emul_random_round_trip(void **state)
{
	const char *env = getenv("TEST_TOOLS_SEED");
	uint32_t seed = env ? (uint32_t)strtoul(env, NULL, 0) : (uint32_t)time(NULL);
	uint32_t rng;
	unsigned int n;

	if (!seed)
		seed = 1;
	rng = seed;
	printf("test_tools: random round trip, seed %u (TEST_TOOLS_SEED)\n", seed);
	for (n = 0; n < 300; n++)
		round_trip_one(&rng, n);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_get_plain_default_M1),
		T(test_get_plain_long),
		T(test_get_plain_full),
		T(test_get_plain_raw),
		T(test_get_plain_unaligned),
		T(test_get_plain_raw_long),
		T(test_get_plain_empty_acl),
		T(test_get_posix_acl_refused),
		T(test_get_missing_file_continues),
		T(test_get_usage_errors),
		T(test_get_write_error),
		T(test_get_version_help),
		T(test_get_plain_access),
		T(test_get_access_many_groups),
		T(test_get_access_errors),
		T(test_set_plain_not_equivalent_refused),
		T(test_set_plain_equivalent_chmod),
		T(test_modify_plain),
		T(test_modify_plain_dir_and_suid),
		T(test_remove_plain_unsupported),
		T(test_set_missing_file_continues),
		T(test_set_parse_errors),
		T(test_set_invalid_acl_refused),
		T(test_set_posix_acl_refused),
		T(test_set_file_sources),
		T(test_set_file_errors),
		T(test_set_usage_errors),
		T(test_set_version_help),
		T(test_emul_get_names),
		T(test_emul_get_directory_contexts),
		T(test_emul_access),
		T(test_emul_no_acl_shows_mode_M1),
		T(test_emul_set_masks_and_mode_M12),
		T(test_emul_modify_first_match),
		T(test_emul_modify_placement),
		T(test_emul_modify_upstream_positions),
		T(test_emul_chmod_masks),
		T(test_emul_remove),
		T(test_emul_auto_inheritance),
		T(test_emul_propagation_errors),
		T(test_emul_corrupt_acl),
		T(test_emul_random_round_trip),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
