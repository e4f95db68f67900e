/*
 * The debug log (see log.h). One mutex keeps lines from different threads
 * whole; the file is written unbuffered so a crash loses nothing logged.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/xmalloc.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;

int
log_open(const char *path, char **err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600);

	/* Private whatever it was before: it may name the team's work. */
	if (fd == -1 || fchmod(fd, 0600) == -1) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	pthread_mutex_lock(&log_lock);
	if (log_fd != -1)
		close(log_fd);
	log_fd = fd;
	pthread_mutex_unlock(&log_lock);
	return 0;
}

void
log_close(void)
{
	pthread_mutex_lock(&log_lock);
	if (log_fd != -1)
		close(log_fd);
	log_fd = -1;
	pthread_mutex_unlock(&log_lock);
}

void
log_printf(const char *fmt, ...)
{
	char line[4096], stamp[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m;

	pthread_mutex_lock(&log_lock);
	if (log_fd == -1) {
		pthread_mutex_unlock(&log_lock);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line, sizeof line, "%s.%03ldZ ", stamp,
	    ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
	va_end(ap);
	n = m < 0 ? n : (size_t)(n + m) >= sizeof line - 1 ?
	    (int)sizeof line - 2 : n + m;
	line[n++] = '\n';
	if (write(log_fd, line, n) < 0) {
		/* Nothing sensible to do when the log itself fails. */
	}
	pthread_mutex_unlock(&log_lock);
}
