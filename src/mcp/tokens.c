/*
 * The store of the person's sign-ins (see tokens.h). The whole file is
 * small (one entry per signed-in server) and read and written whole; a
 * lock file beside it makes one huddle's change wait for another's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/tokens.h"
#include "util/safefile.h"
#include "util/xmalloc.h"

/* Larger than any store of sign-ins a person could have. */
#define MCP_TOKENS_MAX	(1 << 20)

/* Threads of this huddle take turns; flock does not order them. */
static pthread_mutex_t mcp_tokens_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Takes the lock beside the store: its descriptor, or -1. */
static int
mcp_tokens_lock(const char *path)
{
	char *name = xasprintf("%s.lock", path);
	int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	free(name);
	if (fd != -1 && flock(fd, LOCK_EX) == -1) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The whole store: a new object ({} when there is no file), or NULL
 * when it cannot be read or is not a store: then nothing may be written
 * over it, or every sign-in in it would be lost for one bad read. */
static json_t *
mcp_tokens_read(const char *path)
{
	char *text, *err = NULL;
	size_t size;
	json_t *all;

	if ((text = safefile_read(AT_FDCWD, path, 0, MCP_TOKENS_MAX, &size,
	    &err)) == NULL) {
		free(err);
		return errno == ENOENT ? json_object() : NULL;
	}
	all = size < MCP_TOKENS_MAX ? json_loads(text, 0, NULL) : NULL;
	/* The tokens are gone from memory as soon as they are parsed. */
	memset(text, 0, strlen(text));
	free(text);
	if (!json_is_object(all)) {
		json_decref(all);
		return NULL;
	}
	return all;
}

int
mcp_tokens_find(const char *path, const char *url, json_t **entry)
{
	json_t *all, *servers;

	*entry = NULL;
	if (path == NULL || url == NULL)
		return -1;
	pthread_mutex_lock(&mcp_tokens_mutex);
	all = mcp_tokens_read(path);
	pthread_mutex_unlock(&mcp_tokens_mutex);
	if (all == NULL)
		return -1;
	servers = json_object_get(all, "servers");
	*entry = json_object_get(servers, url);
	*entry = json_is_object(*entry) ? json_incref(*entry) : NULL;
	json_decref(all);
	return *entry != NULL;
}

json_t *
mcp_tokens_get(const char *path, const char *url)
{
	json_t *entry;

	(void)mcp_tokens_find(path, url, &entry);
	return entry;
}

/* Writes all to path, 0600, through a temporary file. */
static int
mcp_tokens_write(const char *path, json_t *all, char **err)
{
	char *tmp = xasprintf("%s.tmp", path), *text;
	size_t len;
	int fd, rc = -1;

	text = json_dumps(all, JSON_INDENT(1) | JSON_SORT_KEYS);
	len = strlen(text);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1)
		*err = xasprintf("%s: %s", tmp, strerror(errno));
	else if (fchmod(fd, 0600) == -1 ||
	    write(fd, text, len) != (ssize_t)len || fsync(fd) == -1) {
		*err = xasprintf("%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
	} else if (close(fd) == -1 || rename(tmp, path) == -1) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		unlink(tmp);
	} else
		rc = 0;
	memset(text, 0, len);
	free(text);
	free(tmp);
	return rc;
}

int
mcp_tokens_put(const char *path, const char *url, json_t *entry,
    char **err)
{
	return mcp_tokens_swap(path, url, entry, NULL, err) == 0 ? 0 : -1;
}

int
mcp_tokens_swap(const char *path, const char *url, json_t *entry,
    const char *was, char **err)
{
	json_t *all, *servers, *now;
	const char *had;
	int lock, rc;

	if (path == NULL) {
		*err = xstrdup("no place to keep sign-ins");
		return -1;
	}
	pthread_mutex_lock(&mcp_tokens_mutex);
	lock = mcp_tokens_lock(path);
	if ((all = mcp_tokens_read(path)) == NULL) {
		*err = xasprintf("%s could not be read as a store of "
		    "sign-ins: it is left as it is", path);
		rc = -1;
		goto out;
	}
	servers = json_object_get(all, "servers");
	now = json_object_get(servers, url);
	had = json_string_value(json_object_get(now, "access_token"));
	if (was != NULL && (had == NULL || strcmp(had, was) != 0)) {
		/* Changed since it was read: by another huddle. */
		json_decref(all);
		rc = 1;
		goto out;
	}
	if (!json_is_object(servers)) {
		servers = json_object();
		json_object_set_new(all, "servers", servers);
	}
	if (entry != NULL)
		json_object_set(servers, url, entry);
	else
		json_object_del(servers, url);
	json_object_set_new(all, "version", json_integer(1));
	rc = mcp_tokens_write(path, all, err);
	json_decref(all);
out:
	if (lock != -1)
		close(lock);
	pthread_mutex_unlock(&mcp_tokens_mutex);
	return rc;
}

int
mcp_tokens_lock_refresh(const char *path)
{
	char *name = xasprintf("%s.refresh", path);
	int fd;

	/* A lock of its own, so that the store is not held while a token
	 * endpoint is asked: flock orders this huddle's threads as it
	 * orders other huddles, each taking its own descriptor. */
	fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(name);
	while (fd != -1 && flock(fd, LOCK_EX) == -1) {
		if (errno != EINTR) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

void
mcp_tokens_unlock(int fd)
{
	if (fd != -1)
		close(fd);
}
