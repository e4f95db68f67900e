/*
 * The file tools (see fstools.h).
 *
 * read_file reads only as far as it must: past the lines before `offset`,
 * counting newlines, then up to the cap or the limit, and one byte more to
 * learn whether the file goes on. It never reads more than the file's
 * size when opened plus one cap, so a file that grows as fast as it is
 * read still ends, and it checks the cancel token before every chunk.
 *
 * Writes work on descriptors: the parent directory is opened (or made)
 * one component at a time without following links, and the temporary
 * file, the rename and the sync all happen relative to it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/fstools.h"
#include "tools/profile.h"
#include "tools/sandbox.h"
#include "util/cancel.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define FSTOOLS_CHUNK		65536
#define FSTOOLS_QUOTE_MAX	200
#define FSTOOLS_TMP_TRIES	100

/* What read_file saw of a file. */
struct fstools_scan {
	long		 offset;	/* first line wanted, from 1 */
	long		 limit;		/* lines wanted; 0: all that fit */
	char		*buf;		/* the kept bytes */
	size_t		 len;
	long		 line;		/* the line the next byte is on */
	long		 kept_lines;	/* newlines in buf */
	int		 full;		/* stopped at the limit or the cap */
	int		 more;		/* the file goes on after buf */
	long long	 size;		/* bytes in the file when opened */
	long long	 bytes;		/* bytes read */
	char		 last;		/* the last byte read */
};

/* A short printable copy of the model's path, for messages. */
static char *
fstools_quote(const char *path)
{
	return utf8_clean(path, strlen(path), FSTOOLS_QUOTE_MAX);
}

static long
fstools_count_nl(const char *p, size_t n)
{
	const char *end = p + n;
	long c = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		c++;
		p++;
	}
	return c;
}

/*
 * The path the model gave, judged (tools/sandbox.h: inside the working
 * directory, no link out; with may_be_missing the file itself may not
 * exist yet), then refused when the profile hides it, or keeps it
 * read-only and for_write. Returns it (malloc'd), or NULL with *why.
 */
static char *
fstools_path(const struct fstools_ctx *c, const char *path,
    int may_be_missing, int for_write, char **why)
{
	char *full = sandbox_path(c->workdir, path, may_be_missing, why);

	if (full != NULL && c->profile != NULL &&
	    (*why = profile_refuses(c->profile, full, for_write)) != NULL) {
		free(full);
		return NULL;
	}
	return full;
}

/* Why an open beneath the working directory failed, for the model. */
static char *
fstools_open_error(const char *path, int err)
{
	char *q = fstools_quote(path), *why;

	if (sandbox_race(err))
		why = xasprintf("'%s' changed while it was being opened: a "
		    "symbolic link appeared on the way; the file tools do not "
		    "follow links there", q);
	else
		why = xasprintf("cannot open '%s': %s", q, strerror(err));
	free(q);
	return why;
}

/*
 * Opens full for reading, refusing anything but a regular file;
 * O_NONBLOCK so that a FIFO cannot hang the open. *st is the file's.
 */
static int
fstools_open(const struct fstools_ctx *c, const char *full,
    const char *path, struct stat *st, char **why)
{
	char *q;
	int fd;

	fd = sandbox_open(c->workdir, full, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    0);
	if (fd == -1) {
		*why = fstools_open_error(path, errno);
		return -1;
	}
	q = fstools_quote(path);
	if (fstat(fd, st) == -1)
		*why = xasprintf("cannot open '%s': %s", q, strerror(errno));
	else if (S_ISDIR(st->st_mode))
		*why = xasprintf("'%s' is a directory; use bash (ls) to list "
		    "it", q);
	else if (!S_ISREG(st->st_mode))
		*why = xasprintf("'%s' is not a regular file", q);
	free(q);
	if (*why != NULL) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Keeps what is wanted of a chunk that starts on line s->line. */
static void
fstools_scan_add(struct fstools_scan *s, const char *p, size_t n)
{
	const char *end = p + n, *nl;
	size_t take;

	/* Skip to the first wanted line. */
	while (s->line < s->offset && p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return;
		p = nl + 1;
		s->line++;
	}
	if (p == end)
		return;
	if (s->full) {
		s->more = 1;
		return;
	}
	take = (size_t)(end - p);
	if (s->limit > 0) {
		const char *q = p;
		long need = s->limit - s->kept_lines;

		while (q < end && (nl = memchr(q, '\n',
		    (size_t)(end - q))) != NULL) {
			q = nl + 1;
			if (--need == 0) {
				take = (size_t)(q - p);
				s->full = 1;
				break;
			}
		}
	}
	if (take > FSTOOLS_READ_CAP - s->len) {
		take = FSTOOLS_READ_CAP - s->len;
		s->full = 1;
	}
	memcpy(s->buf + s->len, p, take);
	s->len += take;
	s->kept_lines += fstools_count_nl(p, take);
	if (p + take < end)
		s->more = 1;
}

/* Reads fd into s as far as it must; -1 with errno, ECANCELED when the
 * token fired. */
static int
fstools_scan_fd(struct fstools_scan *s, int fd, struct cancel *cancel)
{
	char chunk[FSTOOLS_CHUNK];
	long long budget = s->size + FSTOOLS_READ_CAP + FSTOOLS_CHUNK;
	ssize_t n;

	while (!s->more && budget > 0) {
		if (cancel != NULL && cancel_fired(cancel)) {
			errno = ECANCELED;
			return -1;
		}
		/* Once full, one byte says whether the file goes on. */
		n = read(fd, chunk, s->full ? 1 : sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		budget -= n;
		s->bytes += n;
		s->last = chunk[n - 1];
		fstools_scan_add(s, chunk, (size_t)n);
	}
	return 0;
}

/*
 * Cuts text, the repaired kept bytes, to what is shown: at most the cap,
 * on a character boundary, and after the last whole line when the file
 * goes on past it. Returns whether the last line shown is cut short.
 */
static int
fstools_cut(struct fstools_scan *s, char *text)
{
	size_t len = strlen(text);
	char *nl;

	if (len > FSTOOLS_READ_CAP) {
		/* Repair made it longer than the cap. */
		len = FSTOOLS_READ_CAP;
		while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
		text[len] = '\0';
		s->more = 1;
	}
	if (!s->more || len == 0 || text[len - 1] == '\n')
		return 0;
	if ((nl = memrchr(text, '\n', len)) == NULL)
		return 1;	/* one line longer than the cap */
	nl[1] = '\0';
	return 0;
}

/* The notes read_file appends to what it shows. */
static char *
fstools_notes(const struct fstools_scan *s, const char *text, size_t nuls,
    int repaired, int partial)
{
	long shown = fstools_count_nl(text, strlen(text)) + partial;
	long last = s->offset + shown - 1;
	char *more = NULL, *bin = NULL, *all;

	if (s->more && partial)
		more = xasprintf("[showing lines %ld-%ld; line %ld is longer "
		    "than %d KiB and was cut: use bash for the rest of it; "
		    "the file has %lld bytes; read on with offset=%ld]\n",
		    s->offset, last, last, FSTOOLS_READ_CAP / 1024, s->size,
		    last + 1);
	else if (s->more)
		more = xasprintf("[showing lines %ld-%ld; the file goes on "
		    "(%lld bytes in all): read on with offset=%ld]\n",
		    s->offset, last, s->size, last + 1);
	if (nuls > 0)
		bin = xasprintf("[the file looks binary (%zu NUL bytes); NUL "
		    "bytes and invalid UTF-8 are shown as U+FFFD]\n", nuls);
	else if (repaired)
		bin = xstrdup("[invalid UTF-8 in the file is shown as "
		    "U+FFFD]\n");
	all = xasprintf("%s%s", more ? more : "", bin ? bin : "");
	free(more);
	free(bin);
	return all;
}

/* What the model reads: the repaired, capped text plus notes. */
static char *
fstools_render(struct fstools_scan *s)
{
	char *text, *notes, *all;
	size_t nuls, len;
	int repaired, partial;

	if (s->bytes == 0)
		return xstrdup("[the file is empty]");
	if (s->len == 0 && !s->more)
		return xasprintf("[the file has %ld lines; offset %ld is past "
		    "its end]", s->line - (s->last == '\n'), s->offset);
	/* A character cut by the cap is left for the next read. */
	if (s->more)
		s->len = tool_trim_partial(s->buf, s->len);
	text = tool_sanitize(s->buf, s->len, &nuls);
	len = strlen(text);
	repaired = nuls > 0 || len != s->len || memcmp(text, s->buf, len) != 0;
	partial = fstools_cut(s, text);
	len = strlen(text);
	notes = fstools_notes(s, text, nuls, repaired, partial);
	if (notes[0] == '\0') {
		free(notes);
		return text;
	}
	all = xasprintf("%s%s%s", text, len > 0 && text[len - 1] != '\n' ?
	    "\n" : "", notes);
	free(text);
	free(notes);
	return all;
}

int
fstools_read(const struct fstools_ctx *c, const char *path, long offset,
    long limit, struct tool_output *out)
{
	struct fstools_scan s;
	struct stat st;
	char *full, *why = NULL, *q;
	int fd, rc;

	if (limit < 0)
		return tool_error(out, "limit must be a positive number of "
		    "lines; leave it out to read as much as fits");
	if (offset < 0)
		return tool_error(out, "offset must be a line number, from 1");
	if ((full = fstools_path(c, path, 0, 0, &why)) == NULL ||
	    (fd = fstools_open(c, full, path, &st, &why)) == -1) {
		free(full);
		rc = tool_error(out, "%s", why);
		free(why);
		return rc;
	}
	memset(&s, 0, sizeof s);
	s.offset = offset > 0 ? offset : 1;
	s.limit = limit;
	s.line = 1;
	s.size = (long long)st.st_size;
	s.buf = xmalloc(FSTOOLS_READ_CAP);
	if (fstools_scan_fd(&s, fd, c->cancel) == -1) {
		q = fstools_quote(path);
		rc = errno == ECANCELED ? tool_error(out, "cancelled while "
		    "reading '%s'", q) : tool_error(out, "cannot read '%s': "
		    "%s", q, strerror(errno));
		free(q);
	} else {
		tool_output_clear(out);
		out->text = fstools_render(&s);
		rc = 0;
	}
	close(fd);
	free(s.buf);
	free(full);
	return rc;
}

/* The directories write_file made on the way, to take away on failure:
 * each by its name in the directory it was made in. */
struct fstools_made {
	int	*dirs;
	char	**names;
	size_t	 n;
};

static void
fstools_made_add(struct fstools_made *m, int dir, const char *name)
{
	m->dirs = xrealloc(m->dirs, (m->n + 1) * sizeof *m->dirs);
	m->names = xrealloc(m->names, (m->n + 1) * sizeof *m->names);
	m->dirs[m->n] = dup(dir);
	m->names[m->n++] = xstrdup(name);
}

/* Takes the made directories away, deepest first, where still empty (a
 * directory someone filled meanwhile stays, and so do its parents), or
 * with keep only forgets them. */
static void
fstools_made_end(struct fstools_made *m, int keep)
{
	size_t i;

	for (i = m->n; i-- > 0;) {
		if (!keep && m->dirs[i] != -1)
			(void)unlinkat(m->dirs[i], m->names[i], AT_REMOVEDIR);
		if (m->dirs[i] != -1)
			close(m->dirs[i]);
		free(m->names[i]);
	}
	free(m->dirs);
	free(m->names);
	memset(m, 0, sizeof *m);
}

/*
 * Makes the missing directories of rel (a relative path without links,
 * "." or "..") beneath the working directory, one component at a time
 * without following links; returns the last, open, or -1 with *why.
 */
static int
fstools_mkdirs(const struct fstools_ctx *c, const char *rel,
    struct fstools_made *made, char **why)
{
	char *copy = xstrdup(rel), *comp, *save = NULL, *shown;
	int cur, next;

	cur = sandbox_open(c->workdir, c->workdir, O_RDONLY | O_DIRECTORY, 0);
	shown = xstrdup(c->workdir);
	for (comp = strtok_r(copy, "/", &save); cur != -1 && comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		free(shown);
		shown = xasprintf("%s/%.*s", c->workdir,
		    (int)(comp - copy + strlen(comp)), rel);
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (next == -1 && (errno == ENOENT || errno == ENAMETOOLONG)) {
			if (mkdirat(cur, comp, 0755) == 0)
				fstools_made_add(made, cur, comp);
			else if (errno != EEXIST) {
				*why = xasprintf("cannot create directory %s: "
				    "%s", shown, strerror(errno));
				close(cur);
				cur = -1;
				break;
			}
			next = openat(cur, comp, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		}
		if (next == -1)
			*why = fstools_open_error(shown, errno);
		close(cur);
		cur = next;
	}
	if (cur == -1 && *why == NULL)
		*why = fstools_open_error(c->workdir, errno);
	free(shown);
	free(copy);
	return cur;
}

/*
 * Opens the directory that holds full (O_RDONLY, for syncing), beneath
 * the working directory and without following links. With made, missing
 * directories are made and recorded there. Returns it, or -1 with *why.
 */
static int
fstools_parent(const struct fstools_ctx *c, const char *full,
    struct fstools_made *made, char **why)
{
	size_t wlen = strcmp(c->workdir, "/") == 0 ? 0 : strlen(c->workdir);
	const char *slash = strrchr(full, '/');
	char *dir;
	int fd;

	dir = slash == full ? xstrdup("/") :
	    xasprintf("%.*s", (int)(slash - full), full);
	fd = sandbox_open(c->workdir, dir, O_RDONLY | O_DIRECTORY, 0);
	/* The walk that makes what is missing also says best what is
	 * wrong (a name too long, say). */
	if (fd == -1 && made != NULL && !sandbox_race(errno) &&
	    strlen(dir) > wlen)
		fd = fstools_mkdirs(c, dir + wlen + 1, made, why);
	else if (fd == -1)
		*why = fstools_open_error(dir, errno);
	free(dir);
	return fd;
}

static int
fstools_write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Refuses what a write must not replace: a directory, anything but a
 * regular file, a file with other hard links. */
static char *
fstools_replaceable(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return xstrdup("it is a directory");
	if (!S_ISREG(st->st_mode))
		return xstrdup("it is not a regular file");
	if (st->st_nlink > 1)
		return xasprintf("it has %lu hard links, and another of its "
		    "names may be outside the working directory; the file "
		    "tools do not write such files (use bash if you must)",
		    (unsigned long)st->st_nlink);
	return NULL;
}

/* The mode a replaced file keeps, or 0644 for a new one; -1 on refusal. */
static int
fstools_mode(int dir, const char *name, mode_t *mode, char **why)
{
	struct stat st;

	*mode = 0644;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT)
			return 0;
		*why = xstrdup(strerror(errno));
		return -1;
	}
	if ((*why = fstools_replaceable(&st)) != NULL)
		return -1;
	*mode = st.st_mode & 07777;
	return 0;
}

/* A new temporary file in dir, its name in tmp; -1 with errno. */
static int
fstools_tmpfile(int dir, char tmp[32])
{
	static _Atomic unsigned counter;
	unsigned r;
	int i, fd = -1;

	for (i = 0; i < FSTOOLS_TMP_TRIES; i++) {
		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			r = (unsigned)getpid() * 2654435761U + counter++;
		snprintf(tmp, 32, ".huddle-write-%08x", r);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1 || errno != EEXIST)
			break;
	}
	return fd;
}

/*
 * Replaces name in dir by len bytes of data: a temporary file next to it
 * is written, synced and renamed over it, so readers and crashes see the
 * old file or the new one, never a mix. A replaced file keeps its mode,
 * but not (unless we are root) its owner.
 */
static int
fstools_replace(int dir, const char *name, const char *data, size_t len,
    char **why)
{
	char tmp[32];
	mode_t mode;
	int fd, err = 0;

	if (fstools_mode(dir, name, &mode, why) == -1)
		return -1;
	if ((fd = fstools_tmpfile(dir, tmp)) == -1) {
		*why = xasprintf("cannot create a temporary file there: %s",
		    strerror(errno));
		return -1;
	}
	if (fchmod(fd, mode) == -1 || fstools_write_all(fd, data, len) == -1 ||
	    fsync(fd) == -1)
		err = errno;
	if (close(fd) == -1 && err == 0)
		err = errno;
	if (err == 0 && renameat(dir, tmp, dir, name) == -1)
		err = errno;
	if (err != 0) {
		unlinkat(dir, tmp, 0);
		*why = xstrdup(strerror(err));
		return -1;
	}
	(void)fsync(dir);	/* best effort: the data is safe */
	return 0;
}

/* Ends a failed tool with "cannot VERB 'PATH': WHY". */
static int
fstools_fail(struct tool_output *out, const char *verb, const char *path,
    char *why)
{
	char *q = fstools_quote(path);
	int rc;

	rc = tool_error(out, "cannot %s '%s': %s", verb, q, why);
	free(q);
	free(why);
	return rc;
}

int
fstools_write(const struct fstools_ctx *c, const char *path,
    const char *content, struct tool_output *out)
{
	struct fstools_made made = { NULL, NULL, 0 };
	char *full, *why = NULL, *q;
	size_t len;
	int dir = -1, rc;

	if (content == NULL)
		return tool_error(out, "content is missing; give the whole "
		    "text of the file");
	if ((full = fstools_path(c, path, 1, 1, &why)) == NULL) {
		rc = tool_error(out, "%s", why);
		free(why);
		return rc;
	}
	len = strlen(content);
	if ((dir = fstools_parent(c, full, &made, &why)) == -1 ||
	    fstools_replace(dir, strrchr(full, '/') + 1, content, len,
	    &why) == -1) {
		fstools_made_end(&made, 0);
		rc = fstools_fail(out, "write", path, why);
	} else {
		fstools_made_end(&made, 1);
		q = fstools_quote(path);
		rc = tool_ok(out, "wrote %zu bytes to %s", len, q);
		free(q);
	}
	if (dir != -1)
		close(dir);
	free(full);
	return rc;
}

/* Loads all of fd (at most FSTOOLS_EDIT_MAX bytes; st is its) into *buf. */
static int
fstools_slurp(int fd, const struct stat *st, char **buf, size_t *len,
    char **why)
{
	size_t cap;
	ssize_t n;

	if (st->st_size > FSTOOLS_EDIT_MAX) {
		*why = xasprintf("the file is too large to edit (%lld bytes); "
		    "use bash", (long long)st->st_size);
		return -1;
	}
	cap = (size_t)st->st_size + 1;
	*buf = xmalloc(cap);
	*len = 0;
	for (;;) {
		if (*len == cap) {
			/* It grew while we read. */
			if (cap > FSTOOLS_EDIT_MAX) {
				*why = xstrdup("the file is too large to edit; "
				    "use bash");
				return -1;
			}
			cap *= 2;
			*buf = xrealloc(*buf, cap);
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	if (n == -1) {
		*why = xstrdup(strerror(errno));
		return -1;
	}
	return 0;
}

/* How often needle occurs in hay, overlaps counted; *first at the first. */
static size_t
fstools_count(const char *hay, size_t len, const char *needle, size_t nlen,
    const char **first)
{
	const char *p = hay, *end = hay + len, *m;
	size_t n = 0;

	*first = NULL;
	while ((m = memmem(p, (size_t)(end - p), needle, nlen)) != NULL) {
		if (n++ == 0)
			*first = m;
		p = m + 1;
	}
	return n;
}

/* Replaces the one occurrence of old_text in buf and writes it back. */
static int
fstools_splice(const struct fstools_ctx *c, const char *full,
    const char *path, const char *buf, size_t len, const char *old_text,
    const char *new_text, struct tool_output *out)
{
	size_t olen = strlen(old_text), nlen = strlen(new_text), count;
	const char *at;
	char *q = fstools_quote(path), *why = NULL, *edited;
	int dir, rc;

	count = fstools_count(buf, len, old_text, olen, &at);
	if (count != 1) {
		rc = tool_error(out, "old_text occurs %zu times in '%s'; %s",
		    count, q, count == 0 ? "copy it exactly from the file "
		    "(whitespace and line ends included), with enough "
		    "surrounding lines to occur exactly once" : "include more "
		    "surrounding lines so that it occurs exactly once");
		free(q);
		return rc;
	}
	edited = xmalloc(len - olen + nlen + 1);
	memcpy(edited, buf, (size_t)(at - buf));
	memcpy(edited + (at - buf), new_text, nlen);
	memcpy(edited + (at - buf) + nlen, at + olen,
	    len - (size_t)(at - buf) - olen);
	if ((dir = fstools_parent(c, full, NULL, &why)) == -1 ||
	    fstools_replace(dir, strrchr(full, '/') + 1, edited,
	    len - olen + nlen, &why) == -1)
		rc = fstools_fail(out, "edit", path, why);
	else
		rc = tool_ok(out, "edited %s: replaced %zu bytes with %zu "
		    "bytes", q, olen, nlen);
	if (dir != -1)
		close(dir);
	free(edited);
	free(q);
	return rc;
}

int
fstools_edit(const struct fstools_ctx *c, const char *path,
    const char *old_text, const char *new_text, struct tool_output *out)
{
	char *full = NULL, *why = NULL, *buf = NULL;
	struct stat st;
	size_t len;
	int fd = -1, rc;

	if (old_text == NULL || old_text[0] == '\0')
		return tool_error(out, "old_text is empty; give the exact text "
		    "to replace, with enough context to occur once");
	if (new_text == NULL)
		return tool_error(out, "new_text is missing; give the text "
		    "that replaces old_text (it may be empty)");
	if ((full = fstools_path(c, path, 0, 1, &why)) == NULL ||
	    (fd = fstools_open(c, full, path, &st, &why)) == -1)
		rc = tool_error(out, "%s", why);
	else if ((why = fstools_replaceable(&st)) != NULL ||
	    fstools_slurp(fd, &st, &buf, &len, &why) == -1) {
		rc = fstools_fail(out, "edit", path, why);
		why = NULL;
	} else
		rc = fstools_splice(c, full, path, buf, len, old_text,
		    new_text, out);
	if (fd != -1)
		close(fd);
	free(why);
	free(buf);
	free(full);
	return rc;
}
