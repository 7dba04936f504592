/*
 * nfs_getattr.c - what an NFSv4 GETATTR of the acl costs next to a GETATTR
 * of the mode only, on knfsd in the QEMU guest.
 *
 *     nfs_getattr [--rounds N] [--seconds S] LABEL=PATH ...
 *
 * A minimal NFSv4.0 client over TCP to 127.0.0.1:2049 (AUTH_SYS as root,
 * from a reserved port).  The kernel's NFS client caches acls, so it cannot
 * measure the server: this program sends the compounds itself.  For each
 * PATH (relative to the export's root) it looks up the file handle once
 * (PUTROOTFH, LOOKUP..., GETFH), then times two compounds, one at a time:
 *
 *   mode:  PUTFH, GETATTR {mode}
 *   acl:   PUTFH, GETATTR {acl}
 *
 * Timing: ROUNDS rounds; in each round every file is timed for both
 * compounds in loops of at least SECONDS, the files taking turns (the
 * starting file rotates).  Output, one line per file:
 *
 *   nfs LABEL entries E mode_ns M acl_ns A ratio R q1 Q1 q3 Q3 min X max Y
 *
 * with the medians of the per-round ns and, for the per-round ratio
 * acl/mode, the median, quartiles and extremes.  E is the number of
 * entries of the acl the server sent (bench/report.py compares it with
 * what bench/guest-bench.sh set).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OP_GETATTR	9
#define OP_GETFH	10
#define OP_LOOKUP	15
#define OP_PUTFH	22
#define OP_PUTROOTFH	24
#define FATTR4_ACL	12
#define FATTR4_MODE	33
#define MAX_FILES	16

struct buf {
	uint8_t data[65536];
	size_t len;
};

struct file {
	const char *label;
	const char *path;
	uint8_t fh[128];
	uint32_t fhlen;
	int entries;
	double mode_ns[64], acl_ns[64], ratio[64];
};

static int sock = -1;
static uint32_t xid = 1;

static void die(const char *what)
{
	fprintf(stderr, "nfs_getattr: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put32(struct buf *b, uint32_t v)
{
	v = htonl(v);
	memcpy(b->data + b->len, &v, 4);
	b->len += 4;
}

static void put_opaque(struct buf *b, const void *p, uint32_t n)
{
	put32(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	while (b->len % 4)
		b->data[b->len++] = 0;
}

static uint32_t get32(const struct buf *b, size_t *off)
{
	uint32_t v;

	if (*off + 4 > b->len) {
		fprintf(stderr, "nfs_getattr: short reply\n");
		exit(1);
	}
	memcpy(&v, b->data + *off, 4);
	*off += 4;
	return ntohl(v);
}

static void skip_opaque(const struct buf *b, size_t *off)
{
	uint32_t n = get32(b, off);

	*off += (n + 3) & ~3u;
}

/* The RPC call header and the COMPOUND4args header, numops ops follow. */
static void start_compound(struct buf *b, uint32_t numops)
{
	static const char machine[] = "bench";

	b->len = 4;		/* record marker */
	put32(b, xid++);
	put32(b, 0);		/* CALL */
	put32(b, 2);		/* RPC version */
	put32(b, 100003);	/* NFS */
	put32(b, 4);
	put32(b, 1);		/* COMPOUND */
	put32(b, 1);		/* AUTH_SYS */
	put32(b, 4 + 4 + 8 + 4 + 4 + 4);
	put32(b, 0);		/* stamp */
	put_opaque(b, machine, 5);
	put32(b, 0);		/* uid */
	put32(b, 0);		/* gid */
	put32(b, 0);		/* gids */
	put32(b, 0);		/* verifier: AUTH_NONE */
	put32(b, 0);
	put_opaque(b, "", 0);	/* tag */
	put32(b, 0);		/* minor version */
	put32(b, numops);
}

static void call(struct buf *req, struct buf *rep)
{
	uint32_t mark = htonl(0x80000000u | (uint32_t)(req->len - 4));
	size_t done = 0;
	uint32_t len;
	ssize_t n;

	memcpy(req->data, &mark, 4);
	while (done < req->len) {
		n = write(sock, req->data + done, req->len - done);
		if (n <= 0)
			die("write");
		done += n;
	}
	for (done = 0; done < 4; done += n) {
		n = read(sock, (char *)&mark + done, 4 - done);
		if (n <= 0)
			die("read");
	}
	len = ntohl(mark) & 0x7fffffffu;
	if (!(ntohl(mark) & 0x80000000u) || len > sizeof(rep->data)) {
		fprintf(stderr, "nfs_getattr: reply of %u bytes in fragments\n", len);
		exit(1);
	}
	for (done = 0; done < len; done += n) {
		n = read(sock, rep->data + done, len - done);
		if (n <= 0)
			die("read");
	}
	rep->len = len;
}

/* Check the RPC and COMPOUND status; *off is left at the first result. */
static uint32_t compound_status(const struct buf *rep, size_t *off)
{
	uint32_t status;

	*off = 0;
	get32(rep, off);				/* xid */
	if (get32(rep, off) != 1 || get32(rep, off) != 0)	/* REPLY, ACCEPTED */
		return 0xffffffff;
	get32(rep, off);				/* verifier */
	skip_opaque(rep, off);
	if (get32(rep, off) != 0)			/* SUCCESS */
		return 0xfffffffe;
	status = get32(rep, off);
	skip_opaque(rep, off);				/* tag */
	get32(rep, off);				/* numres */
	return status;
}

static void lookup_fh(struct file *f)
{
	char path[4096], *comp, *save = NULL;
	struct buf req, rep;
	uint32_t n = 0, st;
	size_t off;

	snprintf(path, sizeof(path), "%s", f->path);
	for (comp = path; *comp; comp++)
		n += *comp == '/';
	start_compound(&req, n + 3);
	put32(&req, OP_PUTROOTFH);
	for (comp = strtok_r(path, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		put32(&req, OP_LOOKUP);
		put_opaque(&req, comp, strlen(comp));
	}
	put32(&req, OP_GETFH);
	call(&req, &rep);
	st = compound_status(&rep, &off);
	if (st) {
		fprintf(stderr, "nfs_getattr: lookup of %s: status %u\n", f->path, st);
		exit(1);
	}
	for (;;) {
		uint32_t op = get32(&rep, &off);

		get32(&rep, &off);	/* status, 0 */
		if (op == OP_GETFH)
			break;
	}
	f->fhlen = get32(&rep, &off);
	if (f->fhlen > sizeof(f->fh))
		exit(1);
	memcpy(f->fh, rep.data + off, f->fhlen);
}

/* PUTFH + GETATTR of one attribute; returns the number of acl entries
 * for FATTR4_ACL, 0 otherwise. */
static int getattr(const struct file *f, int attr)
{
	struct buf req, rep;
	size_t off;
	uint32_t st, words;

	start_compound(&req, 2);
	put32(&req, OP_PUTFH);
	put_opaque(&req, f->fh, f->fhlen);
	put32(&req, OP_GETATTR);
	put32(&req, attr / 32 + 1);
	put32(&req, attr < 32 ? 1u << attr : 0);
	if (attr >= 32)
		put32(&req, 1u << (attr - 32));
	call(&req, &rep);
	st = compound_status(&rep, &off);
	if (st) {
		fprintf(stderr, "nfs_getattr: GETATTR %d of %s: status %u\n", attr, f->path, st);
		exit(1);
	}
	if (attr != FATTR4_ACL)
		return 0;
	get32(&rep, &off);	/* PUTFH */
	get32(&rep, &off);
	get32(&rep, &off);	/* GETATTR */
	get32(&rep, &off);
	words = get32(&rep, &off);
	off += 4 * words;
	get32(&rep, &off);	/* attrlist length */
	return (int)get32(&rep, &off);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double time_loop(const struct file *f, int attr, double seconds)
{
	double t0 = now(), t;
	long n = 0;

	do {
		getattr(f, attr);
		n++;
		t = now();
	} while (t - t0 < seconds);
	return (t - t0) * 1e9 / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
	double s[64];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp);
	return s[(int)(q * (n - 1) + 0.5)];
}

static void connect_server(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int port;

	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (sock < 0)
		die("socket");
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (port = 1023; port > 600; port--) {	/* knfsd wants a reserved port */
		sa.sin_port = htons(port);
		if (!bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
			break;
	}
	if (port == 600)
		die("bind to a reserved port");
	sa.sin_port = htons(2049);
	if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect to 127.0.0.1:2049");
}

int main(int argc, char **argv)
{
	struct file files[MAX_FILES];
	int nfiles = 0, rounds = 9, r, i;
	double seconds = 0.3;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (strchr(argv[i], '=') && nfiles < MAX_FILES) {
			char *eq = strchr(argv[i], '=');

			*eq = 0;
			files[nfiles].label = argv[i];
			files[nfiles].path = eq + 1;
			nfiles++;
		} else {
			fprintf(stderr, "usage: nfs_getattr [--rounds N] [--seconds S] LABEL=PATH ...\n");
			return 2;
		}
	}
	if (!nfiles || rounds < 1 || rounds > 64)
		return 2;
	connect_server();
	for (i = 0; i < nfiles; i++) {
		lookup_fh(&files[i]);
		files[i].entries = getattr(&files[i], FATTR4_ACL);
		time_loop(&files[i], FATTR4_MODE, seconds / 3);	/* warm-up */
		time_loop(&files[i], FATTR4_ACL, seconds / 3);
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nfiles; i++) {
			struct file *f = &files[(i + r) % nfiles];

			f->mode_ns[r] = time_loop(f, FATTR4_MODE, seconds);
			f->acl_ns[r] = time_loop(f, FATTR4_ACL, seconds);
			f->ratio[r] = f->acl_ns[r] / f->mode_ns[r];
		}
	}
	for (i = 0; i < nfiles; i++) {
		struct file *f = &files[i];

		printf("nfs %s entries %d mode_ns %.0f acl_ns %.0f ratio %.3f q1 %.3f q3 %.3f "
		       "min %.3f max %.3f\n", f->label, f->entries,
		       quantile(f->mode_ns, rounds, 0.5), quantile(f->acl_ns, rounds, 0.5),
		       quantile(f->ratio, rounds, 0.5), quantile(f->ratio, rounds, 0.25),
		       quantile(f->ratio, rounds, 0.75), quantile(f->ratio, rounds, 0.0),
		       quantile(f->ratio, rounds, 1.0));
	}
	return 0;
}
