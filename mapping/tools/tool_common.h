/*
 * tool_common.h - code shared by getrichacl and setrichacl: the name service
 * for the text form, reading and storing system.richacl with the fallbacks of
 * the original tools, and automatic-inheritance propagation.
 *
 * Every function that fails has already printed its message to stderr in the
 * original tools' style ("<path>: <reason>") and returns -1.
 */
#ifndef RICHACL_TOOL_COMMON_H
#define RICHACL_TOOL_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "richacl.h"

#define TOOL_VERSION "0.1"

/* name service backed by getpwnam_r & co. */
extern const struct richacl_names tool_names;

/* print "<what>: <strerror(err)>" on stderr (err is a positive errno value) */
void tool_error(const char *what, int err);

/*
 * Flush stdout; on a write error print "<progname>: <reason>" and return 1,
 * else return status.  Every exit after output goes through this.
 */
int tool_exit_status(const char *progname, int status);

/* the program name for messages: the last component of argv[0] */
const char *tool_progname(const char *argv0);

/* text context for a file of this mode (directory or file) */
unsigned int tool_context(mode_t mode);

/*
 * Read the stored acl of path (system.richacl, following symlinks).
 * Returns 0 with *acl set, or a negative errno value (-ENODATA when there is
 * none, -EINVAL for a corrupt value) without printing anything.
 */
int tool_read_richacl(const char *path, struct richacl **acl);

/* true if path has a POSIX access acl (or, for a directory, a default acl) */
bool tool_has_posix_acl(const char *path, bool isdir);

/* true for the errors that mean "this file has no acl of its own" */
bool tool_no_acl_error(int err);

/*
 * The acl getrichacl shows before masks are applied: the stored acl, or the
 * one equivalent to the mode when the file has none or the filesystem does
 * not support richacls.  A file with a POSIX acl is refused.
 */
int tool_file_acl(const char *path, const struct stat *st, struct richacl **acl);

/*
 * Store acl on path like the original set_richacl(): setxattr, and if that
 * fails fall back to chmod when the acl is equivalent to a mode.  After a
 * successful store of an acl with auto_inherit, propagate it (5.4).
 */
int tool_store_richacl(const char *path, const struct richacl *acl);

/*
 * Read all of stream into a NUL-terminated string.  name is used for error
 * messages.  The stream is not closed.
 */
char *tool_read_stream(FILE *stream, const char *name);

#endif
