/*
 * The seccomp filter a command runs under (libseccomp), a second wall
 * behind Landlock for what Landlock does not govern: ioctls that type
 * into a terminal, the kernel's keyrings, socket families and types, and
 * connect(), which the reaper judges (sockgate.h) through seccomp user
 * notification.
 */
#ifndef HUDDLE_TOOLS_SYSFILTER_H
#define HUDDLE_TOOLS_SYSFILTER_H

struct confine;

/*
 * Loads the filter for c into the calling process, for good (it sets
 * no_new_privs when not yet set). Always refused: ioctl TIOCSTI,
 * TIOCLINUX and TIOCSETD (EPERM), io_uring (ENOSYS: its operations
 * would pass the filter by), and keyctl, add_key and request_key
 * (EPERM: no keyring, keyring.h). When Unix sockets are judged: Unix datagram
 * sockets (EACCES), which can send to any path without connect. Under
 * CONFINE_NET_NONE every family but AF_UNIX and AF_NETLINK; under
 * CONFINE_NET_PROXY every family but those and TCP over IPv4 and IPv6,
 * and TCP Fast Open, which connects without connect (EACCES). When the
 * reaper judges connect (sysfilter_supervised), every connect() waits for
 * it, and the filter's listener is sent over notify_sock (SCM_RIGHTS)
 * and closed here; on a kernel without user notification nothing is
 * sent and Unix sockets cannot be made at all. With c->prebuilt the
 * program on built_fd (sysfilter_program's, which the reaper is given on
 * REAPER_FILTER_FD) is loaded instead of being built here. Returns 0, or
 * -1 with *err.
 */
int sysfilter_load(const struct confine *c, int built_fd, int notify_sock,
    char **err);

/*
 * Whether c asks the reaper to judge connect() (a rule for Unix sockets,
 * or the proxy): then the reaper makes the socket over which
 * sysfilter_load sends it the filter's listener (sysfilter_receive).
 */
int sysfilter_supervised(const struct confine *c);

/*
 * In huddle, before a command starts: the filter sysfilter_load would
 * build for c, compiled once for each shape of rules and kept in a sealed
 * memory file for the life of the process (building it costs a command
 * some milliseconds). Given to the reaper on REAPER_FILTER_FD with
 * c->prebuilt set, it is loaded as it is. Returns the descriptor (which
 * the caller must not close), or -1 with *err; thread-safe.
 */
int sysfilter_program(const struct confine *c, char **err);

/* Receives the listener sysfilter_load sent: its descriptor, or -1 when
 * the other end closed without sending one. */
int sysfilter_receive(int sock);

#endif
