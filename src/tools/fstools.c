/*
 * The file tools (see fstools.h).
 *
 * read_file streams the file once: it keeps the first lines (or the first
 * 100 KiB) and only counts the rest, so asking for ten lines of a huge log
 * costs one pass over it and no more memory than the cap.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/fstools.h"
#include "tools/sandbox.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define FSTOOLS_CHUNK		65536
#define FSTOOLS_QUOTE_MAX	200

/* What read_file saw of a file. */
struct fstools_scan {
	long		 limit;		/* lines to keep; 0: all */
	char		*buf;		/* the kept bytes */
	size_t		 len;
	int		 keeping;	/* still adding to buf */
	int		 by_limit;	/* stopped at the line limit */
	int		 by_size;	/* stopped at the byte cap */
	long		 kept_lines;	/* newlines in buf */
	long		 lines;		/* newlines in the file */
	long long	 bytes;		/* bytes in the file */
	char		 last;		/* the file's last byte */
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
 * Opens full for reading, refusing anything but a regular file. O_NOFOLLOW
 * because sandbox_path already followed every link; O_NONBLOCK so that a
 * FIFO cannot hang the open.
 */
static int
fstools_open(const char *full, const char *path, char **why)
{
	struct stat st;
	char *q = fstools_quote(path);
	int fd;

	fd = open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		*why = xasprintf("cannot open '%s': %s", q, strerror(errno));
	else if (fstat(fd, &st) == -1)
		*why = xasprintf("cannot open '%s': %s", q, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		*why = xasprintf("'%s' is a directory; use bash (ls) to list "
		    "it", q);
	else if (!S_ISREG(st.st_mode))
		*why = xasprintf("'%s' is not a regular file", q);
	if (fd != -1 && *why != NULL) {
		close(fd);
		fd = -1;
	}
	free(q);
	return fd;
}

/* Bytes of p (n long) that keep the kept text within the line limit. */
static size_t
fstools_take(struct fstools_scan *s, const char *p, size_t n)
{
	const char *q = p, *nl, *end = p + n;
	long need = s->limit - s->kept_lines;

	while (q < end && (nl = memchr(q, '\n', (size_t)(end - q))) != NULL) {
		if (--need == 0) {
			s->by_limit = 1;
			return (size_t)(nl + 1 - p);
		}
		q = nl + 1;
	}
	return n;
}

/* Counts a chunk of the file and keeps what is still wanted of it. */
static void
fstools_scan_add(struct fstools_scan *s, const char *p, size_t n)
{
	size_t take, room = FSTOOLS_READ_CAP - s->len;

	s->bytes += (long long)n;
	s->lines += fstools_count_nl(p, n);
	s->last = p[n - 1];
	if (!s->keeping)
		return;
	take = s->limit > 0 ? fstools_take(s, p, n) : n;
	if (take > room) {
		take = room;
		s->by_limit = 0;
		s->by_size = 1;
	}
	memcpy(s->buf + s->len, p, take);
	s->len += take;
	s->kept_lines += fstools_count_nl(p, take);
	if (s->by_size)
		s->len = tool_trim_partial(s->buf, s->len);
	if (s->by_limit || s->by_size)
		s->keeping = 0;
}

/* Reads the whole of fd into s. */
static int
fstools_scan_fd(struct fstools_scan *s, int fd)
{
	char chunk[FSTOOLS_CHUNK];
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		fstools_scan_add(s, chunk, (size_t)n);
	}
}

/* The notes read_file appends to what it shows. */
static char *
fstools_notes(const struct fstools_scan *s, const char *text, size_t nuls,
    int repaired)
{
	long total = s->lines + (s->bytes > 0 && s->last != '\n');
	long shown = fstools_count_nl(text, strlen(text));
	char *size = NULL, *lines = NULL, *bin = NULL, *all;

	if (text[0] != '\0' && text[strlen(text) - 1] != '\n')
		shown++;
	if (s->by_size)
		size = xasprintf("[cut at 100 KiB: showing %ld of %ld lines "
		    "(%lld bytes in all); read on with bash, e.g. "
		    "sed -n '%ld,%ldp' FILE]\n", shown, total, s->bytes,
		    fstools_count_nl(text, strlen(text)) + 1,
		    fstools_count_nl(text, strlen(text)) + 1000);
	else if (s->by_limit && total > shown)
		lines = xasprintf("[showing the first %ld of %ld lines; %ld "
		    "more lines left out]\n", shown, total, total - shown);
	if (nuls > 0)
		bin = xasprintf("[the file looks binary (%zu NUL bytes); NUL "
		    "bytes and invalid UTF-8 are shown as U+FFFD]\n", nuls);
	else if (repaired)
		bin = xstrdup("[invalid UTF-8 in the file is shown as "
		    "U+FFFD]\n");
	all = xasprintf("%s%s%s", size ? size : "", lines ? lines : "",
	    bin ? bin : "");
	free(size);
	free(lines);
	free(bin);
	return all;
}

/* What the model reads: the repaired, capped text plus notes. */
static char *
fstools_render(struct fstools_scan *s)
{
	char *text, *notes, *all;
	size_t nuls, len;
	int repaired;

	if (s->bytes == 0)
		return xstrdup("[the file is empty]");
	text = tool_sanitize(s->buf, s->len, &nuls);
	len = strlen(text);
	repaired = nuls > 0 || len != s->len || memcmp(text, s->buf, len) != 0;
	if (len > FSTOOLS_READ_CAP) {
		/* Repair made it longer; cut on a character boundary. */
		len = FSTOOLS_READ_CAP;
		while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
		text[len] = '\0';
		s->by_size = 1;
	}
	notes = fstools_notes(s, text, nuls, repaired);
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
fstools_read(const char *workdir, const char *path, long limit,
    struct tool_output *out)
{
	struct fstools_scan s;
	char *full, *why = NULL, *q;
	int fd, rc;

	if (limit < 0)
		return tool_error(out, "limit must be a positive number of "
		    "lines; leave it out to read the whole file");
	if ((full = sandbox_path(workdir, path, 0, &why)) == NULL ||
	    (fd = fstools_open(full, path, &why)) == -1) {
		free(full);
		rc = tool_error(out, "%s", why);
		free(why);
		return rc;
	}
	memset(&s, 0, sizeof s);
	s.limit = limit;
	s.keeping = 1;
	s.buf = xmalloc(FSTOOLS_READ_CAP);
	if (fstools_scan_fd(&s, fd) == -1) {
		q = fstools_quote(path);
		rc = tool_error(out, "cannot read '%s': %s", q,
		    strerror(errno));
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

/*
 * Creates the missing directories between workdir and full's parent.
 * *created is the topmost one it made (malloc'd), or NULL when it made
 * none; fstools_rmparents takes them away again.
 */
static int
fstools_mkparents(const char *workdir, const char *full, char **created,
    char **why)
{
	char *p = xstrdup(full), *s = p + strlen(workdir);
	int rc = 0;

	*created = NULL;
	while (*s == '/')
		s++;
	while ((s = strchr(s, '/')) != NULL) {
		*s = '\0';
		if (mkdir(p, 0755) == 0) {
			if (*created == NULL)
				*created = xstrdup(p);
		} else if (errno != EEXIST) {
			*why = xasprintf("cannot create directory %s: %s", p,
			    strerror(errno));
			rc = -1;
			break;
		}
		*s++ = '/';
	}
	free(p);
	return rc;
}

/* Removes the directories fstools_mkparents made for full, deepest first,
 * as far as they are still empty: a failed write leaves nothing behind. */
static void
fstools_rmparents(const char *full, const char *created)
{
	char *p = xstrdup(full), *slash;
	size_t top = strlen(created);

	while ((slash = strrchr(p, '/')) != NULL) {
		*slash = '\0';
		if (strlen(p) < top)
			break;
		/* Below where mkdir failed there is nothing; a directory
		 * someone filled meanwhile stays, and so do its parents. */
		(void)rmdir(p);
	}
	free(p);
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

/* Syncs the directory holding full, so a rename in it is durable. */
static void
fstools_sync_dir(const char *full)
{
	char *dir = xstrdup(full), *slash = strrchr(dir, '/');
	int fd;

	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(fd);	/* best effort: the data is safe */
		close(fd);
	}
	free(dir);
}

/* The mode a replaced file keeps, or 0644 for a new one; -1 on refusal. */
static int
fstools_mode(const char *full, mode_t *mode, char **why)
{
	struct stat st;

	*mode = 0644;
	if (lstat(full, &st) == -1)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		*why = xstrdup("it is a directory");
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = xstrdup("it is not a regular file");
		return -1;
	}
	*mode = st.st_mode & 07777;
	return 0;
}

/*
 * Replaces full by len bytes of data: a temporary file next to it is
 * written, synced and renamed over it, so readers and crashes see the old
 * file or the new one, never a mix. A replaced file keeps its mode, but
 * not its hard links or (unless we are root) its owner.
 */
static int
fstools_replace(const char *full, const char *data, size_t len, char **why)
{
	const char *slash = strrchr(full, '/');
	char *tmp;
	mode_t mode;
	int fd, err = 0;

	if (fstools_mode(full, &mode, why) == -1)
		return -1;
	tmp = xasprintf("%.*s/.huddle-write-XXXXXX", (int)(slash - full),
	    full);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		*why = xasprintf("cannot create a temporary file there: %s",
		    strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, mode) == -1 || fstools_write_all(fd, data, len) == -1 ||
	    fsync(fd) == -1)
		err = errno;
	if (close(fd) == -1 && err == 0)
		err = errno;
	if (err == 0 && rename(tmp, full) == -1)
		err = errno;
	if (err != 0) {
		unlink(tmp);
		*why = xstrdup(strerror(err));
	} else
		fstools_sync_dir(full);
	free(tmp);
	return err == 0 ? 0 : -1;
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
fstools_write(const char *workdir, const char *path, const char *content,
    struct tool_output *out)
{
	char *full, *why = NULL, *created = NULL, *q;
	size_t len;
	int rc;

	if (content == NULL)
		return tool_error(out, "content is missing; give the whole "
		    "text of the file");
	if ((full = sandbox_path(workdir, path, 1, &why)) == NULL) {
		rc = tool_error(out, "%s", why);
		free(why);
		return rc;
	}
	len = strlen(content);
	if (fstools_mkparents(workdir, full, &created, &why) == -1 ||
	    fstools_replace(full, content, len, &why) == -1) {
		if (created != NULL)
			fstools_rmparents(full, created);
		rc = fstools_fail(out, "write", path, why);
	} else {
		q = fstools_quote(path);
		rc = tool_ok(out, "wrote %zu bytes to %s", len, q);
		free(q);
	}
	free(created);
	free(full);
	return rc;
}

/* Loads all of fd (at most FSTOOLS_EDIT_MAX bytes) into *buf. */
static int
fstools_slurp(int fd, char **buf, size_t *len, char **why)
{
	struct stat st;
	size_t cap;
	ssize_t n;

	if (fstat(fd, &st) == -1) {
		*why = xstrdup(strerror(errno));
		return -1;
	}
	if (st.st_size > FSTOOLS_EDIT_MAX) {
		*why = xasprintf("the file is too large to edit (%lld bytes); "
		    "use bash", (long long)st.st_size);
		return -1;
	}
	cap = (size_t)st.st_size + 1;
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
fstools_splice(const char *full, const char *path, const char *buf,
    size_t len, const char *old_text, const char *new_text,
    struct tool_output *out)
{
	size_t olen = strlen(old_text), nlen = strlen(new_text), count;
	const char *at;
	char *q = fstools_quote(path), *why = NULL, *edited;
	int rc;

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
	if (fstools_replace(full, edited, len - olen + nlen, &why) == -1)
		rc = fstools_fail(out, "edit", path, why);
	else
		rc = tool_ok(out, "edited %s: replaced %zu bytes with %zu "
		    "bytes", q, olen, nlen);
	free(edited);
	free(q);
	return rc;
}

int
fstools_edit(const char *workdir, const char *path, const char *old_text,
    const char *new_text, struct tool_output *out)
{
	char *full = NULL, *why = NULL, *buf = NULL;
	size_t len;
	int fd = -1, rc;

	if (old_text == NULL || old_text[0] == '\0')
		return tool_error(out, "old_text is empty; give the exact text "
		    "to replace, with enough context to occur once");
	if (new_text == NULL)
		return tool_error(out, "new_text is missing; give the text "
		    "that replaces old_text (it may be empty)");
	if ((full = sandbox_path(workdir, path, 0, &why)) == NULL ||
	    (fd = fstools_open(full, path, &why)) == -1)
		rc = tool_error(out, "%s", why);
	else if (fstools_slurp(fd, &buf, &len, &why) == -1) {
		rc = fstools_fail(out, "edit", path, why);
		why = NULL;
	} else
		rc = fstools_splice(full, path, buf, len, old_text, new_text,
		    out);
	if (fd != -1)
		close(fd);
	free(why);
	free(buf);
	free(full);
	return rc;
}
