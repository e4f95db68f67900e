/*
 * The debug log (--log FILE): timestamped lines from any thread. Until
 * log_open() succeeds, log_printf() writes nothing. Never log a key.
 */
#ifndef HUDDLE_UTIL_LOG_H
#define HUDDLE_UTIL_LOG_H

/* Opens (appends to) path, not through a symbolic link, and makes it mode
 * 0600. Returns 0 or -1 with *err. */
int log_open(const char *path, char **err);

/* Closes the log; later log_printf() calls write nothing. */
void log_close(void);

/* Writes one line ("2026-11-21T19:37:25.123Z message"). */
void log_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
