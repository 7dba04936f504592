/*
 * text.c - the text form of a richacl (getrichacl / setrichacl syntax).
 *
 * The format is the one of the upstream richacl tools, specified in
 * algorithms.md sections 7.1 (parsing) and 7.2 (formatting).  Deliberate
 * deviations from upstream, all of them so that whatever richacl_to_text()
 * prints parses back to the same acl and no input is silently truncated:
 *
 *  D1 A field (who, perms, flags, type) never extends past the separator
 *     that ends its item.  Upstream searches for ':' across separators, so
 *     "flags: a owner@:r::allow" read "a owner@" as a who.
 *  D2 Numbers are allowed in every '/'-separated part of entry-flag and
 *     acl-flag lists, as they are in permission lists (upstream accepts a
 *     number only as the whole field, so it cannot parse its own output for
 *     "f/0x10").
 *  D3 Numbers that do not fit their field (mask > 32 bits, entry flags or
 *     type > 16 bits, acl flags > 8 bits, ids outside the 32-bit range) are
 *     errors; upstream truncates them.  Negative ids are accepted down to
 *     -2147483648 because ids are printed signed ("user:-2").
 *  D4 Numeric entry flags may not contain the identifier bits 0x40
 *     (identifier_group) and 0x4000 (special_who): the who field says
 *     what the identifier is.
 *  D5 The flags field of a mask pseudo-entry must be empty (upstream ignores
 *     it).  An empty who is an error (not uid 0).
 *  D6 Unmapped identifiers containing characters that would break the text
 *     form (separators, ':', control characters) are printed as \ooo octal
 *     escapes, as getfacl does; a backslash is escaped only where it would
 *     otherwise read as an escape.  The parser decodes \ooo in every who.
 *  D7 A name from the name service that would not parse back to the same
 *     id (empty, contains '@', needs escapes, or looks like a number) is
 *     printed as the numeric id.
 *
 * err->column is the 1-based byte offset of the offending token in the
 * text, so a caller can derive line and column for multi-line input.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "richacl.h"

#define TEXT_SEPARATORS " \t\n\r\v\f,"

/* ---- tables ---- */

struct mask_column {
	char letter;
	uint32_t bit;
	const char *file_name;
	const char *dir_name;	/* NULL: same name in both contexts */
};

/* the text column order of algorithms.md 0.1 */
static const struct mask_column mask_columns[] = {
	{ 'r', RICHACE_READ_DATA, "read_data", "list_directory" },
	{ 'w', RICHACE_WRITE_DATA, "write_data", "add_file" },
	{ 'p', RICHACE_APPEND_DATA, "append_data", "add_subdirectory" },
	{ 'x', RICHACE_EXECUTE, "execute", NULL },
	{ 'd', RICHACE_DELETE_CHILD, "delete_child", NULL },
	{ 'D', RICHACE_DELETE, "delete", NULL },
	{ 'a', RICHACE_READ_ATTRIBUTES, "read_attributes", NULL },
	{ 'A', RICHACE_WRITE_ATTRIBUTES, "write_attributes", NULL },
	{ 'R', RICHACE_READ_NAMED_ATTRS, "read_named_attrs", NULL },
	{ 'W', RICHACE_WRITE_NAMED_ATTRS, "write_named_attrs", NULL },
	{ 'c', RICHACE_READ_ACL, "read_acl", NULL },
	{ 'C', RICHACE_WRITE_ACL, "write_acl", NULL },
	{ 'o', RICHACE_WRITE_OWNER, "write_owner", NULL },
	{ 'S', RICHACE_SYNCHRONIZE, "synchronize", NULL },
	{ 'e', RICHACE_WRITE_RETENTION, "write_retention", NULL },
	{ 'E', RICHACE_WRITE_RETENTION_HOLD, "write_retention_hold", NULL },
};

#define N_MASK_COLUMNS (sizeof(mask_columns) / sizeof(mask_columns[0]))

struct flag_name {
	char letter;
	uint32_t bit;
	const char *name;
};

/* printing order f d n i a u */
static const struct flag_name entry_flags[] = {
	{ 'f', RICHACE_FILE_INHERIT_ACE, "file_inherit" },
	{ 'd', RICHACE_DIRECTORY_INHERIT_ACE, "dir_inherit" },
	{ 'n', RICHACE_NO_PROPAGATE_INHERIT_ACE, "no_propagate" },
	{ 'i', RICHACE_INHERIT_ONLY_ACE, "inherit_only" },
	{ 'a', RICHACE_INHERITED_ACE, "inherited" },
	{ 'u', RICHACE_UNMAPPED_WHO, "unmapped" },
	{ 0, 0, NULL }
};

/* printing order m w a p d o */
static const struct flag_name acl_flags[] = {
	{ 'm', RICHACL_MASKED, "masked" },
	{ 'w', RICHACL_WRITE_THROUGH, "write_through" },
	{ 'a', RICHACL_AUTO_INHERIT, "auto_inherit" },
	{ 'p', RICHACL_PROTECTED, "protected" },
	{ 'd', RICHACL_DEFAULTED, "defaulted" },
	{ 'o', RICHACL_OWNER_RIGHTS, "owner_rights" },
	{ 0, 0, NULL }
};

static const char *const special_names[] = { "owner@", "group@", "everyone@" };

/* ---- a growable output string ---- */

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	bool failed;
};

static void sb_append(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->failed)
		return;
	if (sb->len + n + 1 > sb->alloc) {
		size_t alloc = sb->alloc ? sb->alloc : 128;
		char *buf;

		while (alloc < sb->len + n + 1)
			alloc *= 2;
		buf = realloc(sb->buf, alloc);
		if (!buf) {
			sb->failed = true;
			return;
		}
		sb->buf = buf;
		sb->alloc = alloc;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

static void sb_puts(struct strbuf *sb, const char *s)
{
	sb_append(sb, s, strlen(s));
}

static void sb_putc(struct strbuf *sb, char c)
{
	sb_append(sb, &c, 1);
}

static void sb_pad(struct strbuf *sb, size_t width, size_t len)
{
	while (len++ < width)
		sb_putc(sb, ' ');
}

static void sb_hex(struct strbuf *sb, uint32_t v)
{
	char num[16];

	snprintf(num, sizeof(num), "0x%x", (unsigned int)v);
	sb_puts(sb, num);
}

/* returns the string (the caller frees it), or NULL with errno ENOMEM */
static char *sb_finish(struct strbuf *sb)
{
	if (!sb->failed && !sb->buf)
		sb_append(sb, "", 0);
	if (sb->failed) {
		free(sb->buf);
		errno = ENOMEM;
		return NULL;
	}
	return sb->buf;
}

/* ---- formatting ---- */

static bool mask_bit_hidden(uint32_t bit, unsigned int fmt)
{
	return (fmt & RICHACL_TEXT_SIMPLIFY) && (bit & RICHACE_POSIX_ALWAYS_ALLOWED);
}

/* a separator between list items of a field that began at offset start */
static void sb_list_sep(struct strbuf *sb, size_t start)
{
	if (sb->len > start)
		sb_putc(sb, '/');
}

static void write_mask_long(struct strbuf *sb, uint32_t mask, unsigned int fmt)
{
	bool file = fmt & RICHACL_TEXT_FILE_CONTEXT;
	bool dir = fmt & RICHACL_TEXT_DIRECTORY_CONTEXT;
	size_t start = sb->len;
	size_t i;

	if (!file && !dir)
		file = dir = true;
	for (i = 0; i < N_MASK_COLUMNS; i++) {
		const struct mask_column *col = &mask_columns[i];

		if (!(mask & col->bit) || mask_bit_hidden(col->bit, fmt))
			continue;
		if (!col->dir_name || file) {
			sb_list_sep(sb, start);
			sb_puts(sb, col->file_name);
		}
		if (col->dir_name && dir) {
			sb_list_sep(sb, start);
			sb_puts(sb, col->dir_name);
		}
	}
	if (mask & ~RICHACE_VALID_MASK) {
		sb_list_sep(sb, start);
		sb_hex(sb, mask & ~RICHACE_VALID_MASK);
	}
}

static void write_mask_short(struct strbuf *sb, uint32_t mask, unsigned int fmt)
{
	size_t start = sb->len;
	size_t i;

	for (i = 0; i < N_MASK_COLUMNS; i++) {
		const struct mask_column *col = &mask_columns[i];

		if (mask_bit_hidden(col->bit, fmt))
			continue;
		if (mask & col->bit)
			sb_putc(sb, col->letter);
		else if (fmt & RICHACL_TEXT_ALIGN)
			sb_putc(sb, '-');
	}
	if (mask & ~RICHACE_VALID_MASK) {
		sb_list_sep(sb, start);
		sb_hex(sb, mask & ~RICHACE_VALID_MASK);
	}
}

static void write_mask(struct strbuf *sb, uint32_t mask, unsigned int fmt)
{
	if (fmt & RICHACL_TEXT_LONG)
		write_mask_long(sb, mask, fmt);
	else
		write_mask_short(sb, mask, fmt);
}

static void write_flags(struct strbuf *sb, uint32_t flags, uint32_t known,
			const struct flag_name *table, unsigned int fmt)
{
	size_t start = sb->len;
	const struct flag_name *f;

	for (f = table; f->name; f++) {
		if (!(flags & f->bit))
			continue;
		if (fmt & RICHACL_TEXT_LONG) {
			sb_list_sep(sb, start);
			sb_puts(sb, f->name);
		} else {
			sb_putc(sb, f->letter);
		}
	}
	if (flags & ~known) {
		sb_list_sep(sb, start);
		sb_hex(sb, flags & ~known);
	}
}

static void write_type(struct strbuf *sb, uint16_t type)
{
	char num[8];

	if (type == RICHACE_ACCESS_ALLOWED_ACE_TYPE) {
		sb_puts(sb, "allow");
	} else if (type == RICHACE_ACCESS_DENIED_ACE_TYPE) {
		sb_puts(sb, "deny");
	} else {
		snprintf(num, sizeof(num), "%u", (unsigned int)type);
		sb_puts(sb, num);
	}
}

static bool is_separator(char c)
{
	return c && strchr(TEXT_SEPARATORS, c);
}

static bool is_octal_escape(const char *s)
{
	return s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
	       s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7';
}

/* a character of a who string that must be written as \ooo (D6) */
static bool who_char_needs_escape(const char *s)
{
	unsigned char c = (unsigned char)*s;

	return c < 0x20 || c == 0x7f || c == ':' || is_separator((char)c) ||
	       is_octal_escape(s);
}

static void write_escaped(struct strbuf *sb, const char *s)
{
	char esc[8];

	for (; *s; s++) {
		if (who_char_needs_escape(s)) {
			snprintf(esc, sizeof(esc), "\\%03o", (unsigned char)*s);
			sb_puts(sb, esc);
		} else {
			sb_putc(sb, *s);
		}
	}
}

/* strict unsigned number (C syntax, base 0) covering all of s */
static bool parse_number(const char *s, uint64_t max, uint32_t *value)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end || errno || v > max)
		return false;
	*value = (uint32_t)v;
	return true;
}

/* an id: a number, or a negative number as printed for ids >= 2^31 (D3) */
static bool parse_id(const char *s, uint32_t *id)
{
	uint32_t v;

	if (s[0] == '-') {
		if (!parse_number(s + 1, 0x80000000u, &v) || !v)
			return false;
		*id = (uint32_t)0 - v;
		return true;
	}
	return parse_number(s, UINT32_MAX, id);
}

/* a name from the name service that parses back to the same id (D7) */
static bool name_round_trips(const char *name)
{
	uint32_t id;
	const char *s;

	if (!*name || strchr(name, '@') || parse_id(name, &id))
		return false;
	for (s = name; *s; s++) {
		if (who_char_needs_escape(s))
			return false;
	}
	return true;
}

static void write_numeric_id(struct strbuf *sb, uint32_t id)
{
	char num[16];

	/* ids are printed signed, as upstream does: 4294967294 -> -2 */
	snprintf(num, sizeof(num), "%d", (int)(int32_t)id);
	sb_puts(sb, num);
}

static void write_who(struct strbuf *sb, const struct richace *ace,
		      unsigned int fmt, const struct richacl_names *names)
{
	bool group = ace->e_flags & RICHACE_IDENTIFIER_GROUP;
	char name[1024];
	int ret = -ENOENT;

	if (ace->e_flags & RICHACE_SPECIAL_WHO) {
		if (ace->e_id < 3) {
			sb_puts(sb, special_names[ace->e_id]);
		} else {
			/* invalid; prints as a who the parser rejects */
			write_numeric_id(sb, ace->e_id);
			sb_putc(sb, '@');
		}
		return;
	}
	sb_puts(sb, group ? "group:" : "user:");
	if (ace->e_flags & RICHACE_UNMAPPED_WHO) {
		write_escaped(sb, ace->e_who ? ace->e_who : "");
		return;
	}
	if (names && !(fmt & RICHACL_TEXT_NUMERIC_IDS)) {
		int (*lookup)(void *, uint32_t, char *, size_t) =
			group ? names->id_to_group : names->id_to_user;

		if (lookup) {
			name[0] = '\0';
			ret = lookup(names->ctx, ace->e_id, name, sizeof(name));
			/* a name that fills the buffer may have been cut short */
			if (strnlen(name, sizeof(name)) >= sizeof(name) - 1)
				ret = -ERANGE;
		}
	}
	if (!ret && name_round_trips(name))
		sb_puts(sb, name);
	else
		write_numeric_id(sb, ace->e_id);
}

/* the text context of an entry (algorithms.md 7.2) */
static unsigned int entry_context(const struct richace *ace, unsigned int fmt)
{
	if (richace_is_inherit_only(ace))
		fmt &= ~(RICHACL_TEXT_FILE_CONTEXT | RICHACL_TEXT_DIRECTORY_CONTEXT);
	if (ace->e_flags & RICHACE_FILE_INHERIT_ACE)
		fmt |= RICHACL_TEXT_FILE_CONTEXT;
	if (ace->e_flags & RICHACE_DIRECTORY_INHERIT_ACE)
		fmt |= RICHACL_TEXT_DIRECTORY_CONTEXT;
	return fmt;
}

static void write_mask_lines(struct strbuf *sb, const struct richacl *acl,
			     unsigned int fmt, size_t align)
{
	static const char *const mask_names[] = { "owner", "group", "other" };
	const uint32_t masks[] = {
		acl->a_owner_mask, acl->a_group_mask, acl->a_other_mask
	};
	const struct richace *ace;
	uint32_t allowed = 0;
	unsigned int i;

	richacl_for_each_entry(ace, acl) {
		if (richace_is_inherit_only(ace))
			continue;
		if (ace->e_flags & RICHACE_FILE_INHERIT_ACE)
			fmt |= RICHACL_TEXT_FILE_CONTEXT;
		if (ace->e_flags & RICHACE_DIRECTORY_INHERIT_ACE)
			fmt |= RICHACL_TEXT_DIRECTORY_CONTEXT;
		if (richace_is_allow(ace))
			allowed |= ace->e_mask;
	}
	for (i = 0; i < 3; i++) {
		uint32_t mask = masks[i];

		if (fmt & RICHACL_TEXT_SIMPLIFY)
			mask &= allowed;
		sb_pad(sb, align, strlen(mask_names[i]));
		sb_puts(sb, mask_names[i]);
		sb_putc(sb, ':');
		write_mask(sb, mask, fmt);
		sb_puts(sb, "::mask\n");
	}
}

char *richacl_to_text(const struct richacl *acl, unsigned int fmt,
		      const struct richacl_names *names)
{
	struct strbuf sb = { 0 };
	struct strbuf *whos;
	size_t align = 0;
	unsigned int i;
	char *text;

	whos = calloc(acl->a_count ? acl->a_count : 1, sizeof(*whos));
	if (!whos) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < acl->a_count; i++) {
		write_who(&whos[i], &acl->a_entries[i], fmt, names);
		if (whos[i].failed)
			sb.failed = true;
		if (whos[i].len + 1 > align)
			align = whos[i].len + 1;
	}
	if (acl->a_flags || (fmt & RICHACL_TEXT_SHOW_MASKS)) {
		if (align < 6)
			align = 6;
	}
	if (!(fmt & RICHACL_TEXT_ALIGN))
		align = 0;

	if (acl->a_flags) {
		sb_pad(&sb, align, strlen("flags"));
		sb_puts(&sb, "flags:");
		write_flags(&sb, acl->a_flags, RICHACL_VALID_FLAGS, acl_flags, fmt);
		sb_putc(&sb, '\n');
	}
	if (fmt & RICHACL_TEXT_SHOW_MASKS)
		write_mask_lines(&sb, acl, fmt, align);
	for (i = 0; i < acl->a_count; i++) {
		const struct richace *ace = &acl->a_entries[i];

		sb_pad(&sb, align, whos[i].len);
		if (whos[i].buf)
			sb_puts(&sb, whos[i].buf);
		sb_putc(&sb, ':');
		write_mask(&sb, ace->e_mask, entry_context(ace, fmt));
		sb_putc(&sb, ':');
		/* identifier_group and special_who are never printed */
		write_flags(&sb, ace->e_flags & ~(RICHACE_IDENTIFIER_GROUP |
						  RICHACE_SPECIAL_WHO),
			    RICHACE_VALID_FLAGS, entry_flags, fmt);
		sb_putc(&sb, ':');
		write_type(&sb, ace->e_type);
		sb_putc(&sb, '\n');
	}
	for (i = 0; i < acl->a_count; i++)
		free(whos[i].buf);
	free(whos);
	text = sb_finish(&sb);
	return text;
}

char *richacl_mask_to_text(uint32_t mask, unsigned int fmt)
{
	struct strbuf sb = { 0 };

	write_mask(&sb, mask, fmt);
	return sb_finish(&sb);
}

/* ---- parsing ---- */

struct parser {
	const char *text;
	const struct richacl_names *names;
	struct richacl_error *err;
};

/* a field of the text: [start, end) */
struct field {
	const char *start;
	const char *end;
};

static size_t field_len(struct field f)
{
	return (size_t)(f.end - f.start);
}

static bool field_equals(struct field f, const char *s)
{
	return field_len(f) == strlen(s) && !strncasecmp(f.start, s, field_len(f));
}

static char *field_dup(struct field f)
{
	return strndup(f.start, field_len(f));
}

static int parse_error(struct parser *ps, int code, const char *at,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int parse_error(struct parser *ps, int code, const char *at,
		       const char *fmt, ...)
{
	va_list ap;

	if (ps->err) {
		ps->err->code = code;
		ps->err->column = at ? (size_t)(at - ps->text) + 1 : 0;
		va_start(ap, fmt);
		vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

static int parse_nomem(struct parser *ps)
{
	return parse_error(ps, -ENOMEM, NULL, "Out of memory");
}

/* "Invalid entry '<who ... end of item>'" */
static int syntax_error(struct parser *ps, struct field entry)
{
	return parse_error(ps, -EINVAL, entry.start, "Invalid entry '%.*s'",
			   (int)field_len(entry), entry.start);
}

/* the next ':'-terminated field in [*pos, end); false if there is no ':' */
static bool next_field(const char **pos, const char *end, struct field *f)
{
	const char *colon = memchr(*pos, ':', (size_t)(end - *pos));

	if (!colon)
		return false;
	f->start = *pos;
	f->end = colon;
	*pos = colon + 1;
	return true;
}

static int parse_mask(struct parser *ps, struct field f, uint32_t *mask)
{
	const char *part = f.start;
	char buf[32];

	*mask = 0;
	while (part < f.end) {
		const char *slash = memchr(part, '/', (size_t)(f.end - part));
		const char *part_end = slash ? slash : f.end;
		size_t len = (size_t)(part_end - part);
		uint32_t num;
		const char *c;
		size_t i;

		if (!len)
			goto next;
		if (len < sizeof(buf)) {
			memcpy(buf, part, len);
			buf[len] = '\0';
			if (parse_number(buf, UINT32_MAX, &num)) {
				*mask |= num;
				goto next;
			}
			for (i = 0; i < N_MASK_COLUMNS; i++) {
				const struct mask_column *col = &mask_columns[i];

				if (!strcasecmp(buf, col->file_name) ||
				    (col->dir_name && !strcasecmp(buf, col->dir_name)))
					break;
			}
			if (i < N_MASK_COLUMNS) {
				*mask |= mask_columns[i].bit;
				goto next;
			}
		}
		for (c = part; c < part_end; c++) {
			if (*c == '-')
				continue;
			for (i = 0; i < N_MASK_COLUMNS; i++) {
				if (mask_columns[i].letter == *c)
					break;
			}
			if (i == N_MASK_COLUMNS)
				return parse_error(ps, -EINVAL, part,
						   "Invalid access mask '%.*s'",
						   (int)len, part);
			*mask |= mask_columns[i].bit;
		}
next:
		part = part_end + 1;
	}
	return 0;
}

/* entry flags or acl flags: what says which */
struct flags_syntax {
	const struct flag_name *table;
	uint32_t max;		/* largest number accepted */
	uint32_t forbidden;	/* bits a number may not contain (D4) */
	const char *what;	/* "entry flag" / "acl flag" */
};

static const struct flags_syntax entry_flags_syntax = {
	entry_flags, 0xffff, RICHACE_IDENTIFIER_GROUP | RICHACE_SPECIAL_WHO,
	"entry flag"
};

static const struct flags_syntax acl_flags_syntax = {
	acl_flags, 0xff, 0, "acl flag"
};

static int parse_flags(struct parser *ps, struct field f,
		       const struct flags_syntax *syn, uint32_t *flags)
{
	const char *part = f.start;
	char buf[32];

	*flags = 0;
	while (part < f.end) {
		const char *slash = memchr(part, '/', (size_t)(f.end - part));
		const char *part_end = slash ? slash : f.end;
		size_t len = (size_t)(part_end - part);
		const struct flag_name *fl;
		uint32_t num;
		const char *c;

		if (!len)
			goto next;
		if (len < sizeof(buf)) {
			memcpy(buf, part, len);
			buf[len] = '\0';
			if (parse_number(buf, syn->max, &num) &&
			    !(num & syn->forbidden)) {
				*flags |= num;
				goto next;
			}
			for (fl = syn->table; fl->name; fl++) {
				if (!strcasecmp(buf, fl->name))
					break;
			}
			if (fl->name) {
				*flags |= fl->bit;
				goto next;
			}
		}
		for (c = part; c < part_end; c++) {
			if (*c == '-')
				continue;
			for (fl = syn->table; fl->name; fl++) {
				if (fl->letter == *c)
					break;
			}
			if (!fl->name)
				return parse_error(ps, -EINVAL, c,
						   "Invalid %s '%.*s'", syn->what,
						   (int)(part_end - c), c);
			*flags |= fl->bit;
		}
next:
		part = part_end + 1;
	}
	return 0;
}

static int parse_type(struct parser *ps, struct field f, uint16_t *type)
{
	uint32_t num;
	char *s;

	if (field_equals(f, "allow")) {
		*type = RICHACE_ACCESS_ALLOWED_ACE_TYPE;
		return 0;
	}
	if (field_equals(f, "deny")) {
		*type = RICHACE_ACCESS_DENIED_ACE_TYPE;
		return 0;
	}
	s = field_dup(f);
	if (!s)
		return parse_nomem(ps);
	if (parse_number(s, 0xffff, &num)) {
		free(s);
		*type = (uint16_t)num;
		return 0;
	}
	free(s);
	return parse_error(ps, -EINVAL, f.start, "Invalid entry type '%.*s'",
			   (int)field_len(f), f.start);
}

/* the who field with \ooo escapes decoded (D6); NULL if it holds \000 */
static char *decode_who(struct field f, bool *nomem)
{
	char *who = malloc(field_len(f) + 1), *w = who;
	const char *s;

	*nomem = !who;
	if (!who)
		return NULL;
	for (s = f.start; s < f.end; s++) {
		if (f.end - s >= 4 && is_octal_escape(s)) {
			*w = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			if (!*w) {
				free(who);
				return NULL;
			}
			w++;
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	return who;
}

static int lookup_name(struct parser *ps, const char *who, bool group,
		       const char *at, uint32_t *id)
{
	const struct richacl_names *names = ps->names;
	int (*lookup)(void *, const char *, uint32_t *) = NULL;
	int ret = -ENOENT;

	if (names)
		lookup = group ? names->group_to_id : names->user_to_id;
	if (lookup)
		ret = lookup(names->ctx, who, id);
	if (!ret)
		return 0;
	if (ret == -ENOENT)
		return parse_error(ps, ret, at, "%s '%s' does not exist",
				   group ? "Group" : "User", who);
	if (ret > 0)
		ret = -EINVAL;
	return parse_error(ps, ret, at, "Looking up %s '%s' failed: %s",
			   group ? "group" : "user", who, strerror(-ret));
}

/* resolve the who field of an entry whose flags are already parsed */
static int parse_who(struct parser *ps, struct field entry, struct field f,
		     struct richace *ace)
{
	bool group = ace->e_flags & RICHACE_IDENTIFIER_GROUP;
	bool nomem;
	char *who, *at;
	uint32_t id;
	int ret = 0, i;

	who = decode_who(f, &nomem);
	if (nomem)
		return parse_nomem(ps);
	if (!who || !*who) {	/* D5, D6 */
		free(who);
		return syntax_error(ps, entry);
	}
	if (ace->e_flags & RICHACE_UNMAPPED_WHO) {
		if (richace_set_unmapped(ace, who, group))
			ret = parse_nomem(ps);
		goto out;
	}
	at = strchr(who, '@');
	if (at) {
		if (at[1]) {
			ret = parse_error(ps, -ENOENT, f.start,
					  "Domain name not supported in '%s'", who);
			goto out;
		}
		for (i = 0; i < 3; i++) {
			if (!strcasecmp(who, special_names[i]))
				break;
		}
		if (i == 3) {
			ret = parse_error(ps, -ENOENT, f.start,
					  "Special user '%s' not supported", who);
			goto out;
		}
		richace_set_special(ace, (uint32_t)i);
		goto out;
	}
	if (!parse_id(who, &id)) {
		ret = lookup_name(ps, who, group, f.start, &id);
		if (ret)
			goto out;
	}
	if (group)
		richace_set_gid(ace, id);
	else
		richace_set_uid(ace, id);
out:
	free(who);
	return ret;
}

enum who_prefix { PREFIX_NONE, PREFIX_USER, PREFIX_GROUP };

/* the user:/u:/group:/g: prefix of an item with exactly four colons */
static enum who_prefix parse_prefix(struct field item, const char **who)
{
	static const struct {
		const char *text;
		enum who_prefix prefix;
	} prefixes[] = {
		{ "user:", PREFIX_USER }, { "u:", PREFIX_USER },
		{ "group:", PREFIX_GROUP }, { "g:", PREFIX_GROUP },
	};
	const char *c;
	unsigned int colons = 0;
	size_t i, len;

	*who = item.start;
	for (c = item.start; c < item.end; c++)
		colons += *c == ':';
	if (colons != 4)
		return PREFIX_NONE;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		len = strlen(prefixes[i].text);
		if (field_len(item) >= len &&
		    !strncasecmp(item.start, prefixes[i].text, len)) {
			*who = item.start + len;
			return prefixes[i].prefix;
		}
	}
	return PREFIX_NONE;
}

static int parse_file_mask(struct parser *ps, struct richacl *acl,
			   struct field entry, struct field who,
			   struct field flags, uint32_t mask,
			   enum who_prefix prefix, unsigned int *seen)
{
	if (prefix != PREFIX_NONE)
		return syntax_error(ps, entry);
	if (field_len(flags))	/* D5 */
		return parse_error(ps, -EINVAL, flags.start,
				   "Invalid file mask flags '%.*s'",
				   (int)field_len(flags), flags.start);
	if (field_equals(who, "owner")) {
		acl->a_owner_mask = mask;
		*seen |= RICHACL_TEXT_OWNER_MASK;
	} else if (field_equals(who, "group")) {
		acl->a_group_mask = mask;
		*seen |= RICHACL_TEXT_GROUP_MASK;
	} else if (field_equals(who, "other")) {
		acl->a_other_mask = mask;
		*seen |= RICHACL_TEXT_OTHER_MASK;
	} else {
		return parse_error(ps, -EINVAL, who.start,
				   "Invalid file mask '%.*s'",
				   (int)field_len(who), who.start);
	}
	return 0;
}

static int parse_entry(struct parser *ps, struct richacl *acl,
		       struct field entry, struct field who, struct field flags,
		       struct field type, uint32_t mask,
		       enum who_prefix prefix)
{
	struct richace ace = { 0 };
	uint32_t eflags;
	int ret;

	ret = parse_flags(ps, flags, &entry_flags_syntax, &eflags);
	if (ret)
		return ret;
	ace.e_mask = mask;
	ace.e_flags = (uint16_t)eflags;
	if (prefix == PREFIX_GROUP)
		ace.e_flags |= RICHACE_IDENTIFIER_GROUP;
	ret = parse_who(ps, entry, who, &ace);
	if (!ret)
		ret = parse_type(ps, type, &ace.e_type);
	if (!ret && (prefix != PREFIX_NONE) ==
		    !!(ace.e_flags & RICHACE_SPECIAL_WHO))
		ret = syntax_error(ps, entry);
	if (!ret && richacl_append_entry(acl, &ace))
		ret = parse_nomem(ps);
	free(ace.e_who);
	return ret;
}

/* one item (no separators inside); updates acl and *seen */
static int parse_item(struct parser *ps, struct richacl *acl,
		      struct field item, unsigned int *seen)
{
	struct field entry, who, perms, flags, type;
	enum who_prefix prefix;
	const char *pos;
	uint32_t mask, aflags;
	int ret;

	prefix = parse_prefix(item, &pos);
	entry.start = pos;
	entry.end = item.end;
	if (!next_field(&pos, item.end, &who))
		return syntax_error(ps, entry);
	if (prefix == PREFIX_NONE && field_equals(who, "flags")) {
		flags.start = pos;
		flags.end = item.end;
		ret = parse_flags(ps, flags, &acl_flags_syntax, &aflags);
		if (ret)
			return ret;
		acl->a_flags = (uint8_t)aflags;
		*seen |= RICHACL_TEXT_FLAGS;
		return 0;
	}
	if (!next_field(&pos, item.end, &perms) ||
	    !next_field(&pos, item.end, &flags))
		return syntax_error(ps, entry);
	type.start = pos;
	type.end = item.end;

	ret = parse_mask(ps, perms, &mask);
	if (ret)
		return ret;
	if (field_equals(type, "mask"))
		return parse_file_mask(ps, acl, entry, who, flags, mask, prefix,
				       seen);
	return parse_entry(ps, acl, entry, who, flags, type, mask, prefix);
}

int richacl_from_text(const char *text, unsigned int *seen,
		      const struct richacl_names *names, struct richacl **aclp,
		      struct richacl_error *err)
{
	struct parser ps = { text, names, err };
	struct richacl *acl;
	unsigned int seen_bits = 0;
	const char *p = text;
	int ret;

	if (!text)
		return parse_error(&ps, -EINVAL, NULL, "No acl text");
	acl = richacl_alloc(0);
	if (!acl)
		return parse_nomem(&ps);
	for (;;) {
		struct field item;

		p += strspn(p, TEXT_SEPARATORS);
		if (!*p)
			break;
		item.start = p;
		item.end = p + strcspn(p, TEXT_SEPARATORS);
		ret = parse_item(&ps, acl, item, &seen_bits);
		if (ret) {
			richacl_free(acl);
			return ret;
		}
		p = item.end;
	}
	*aclp = acl;
	if (seen)
		*seen = seen_bits;
	return 0;
}
