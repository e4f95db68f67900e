/*
 * The reaper's judge of connect(): every connect() a confined command
 * makes waits on the seccomp listener (sysfilter.h) until the reaper
 * answers. A Unix socket is connected to only beneath the allowed
 * directories or when it is one the person named; an IPv4 or IPv6 one
 * only to huddle's proxy on loopback under CONFINE_NET_PROXY. What is
 * allowed the reaper connects itself, on a duplicate of the command's
 * socket and from its own copy of the address, so the command cannot
 * change the address between the check and the use. Under the proxy it
 * judges listen() as well: a Unix socket may listen, a TCP one may not
 * (it would open a port to the world without ever calling bind).
 */
#ifndef HUDDLE_TOOLS_SOCKGATE_H
#define HUDDLE_TOOLS_SOCKGATE_H

struct confine;
struct sockgate;

/* A judge for the rules of c (kept by pointer: c must outlive it),
 * answering on listener, which it owns from now on. */
struct sockgate *sockgate_new(const struct confine *c, int listener);

/* The descriptor to poll for notifications. */
int sockgate_fd(const struct sockgate *g);

/* Takes one notification from the listener, when there is one, and
 * answers it. */
void sockgate_handle(struct sockgate *g);

/* Closes the listener (a connect still waiting fails) and frees g. */
void sockgate_free(struct sockgate *g);

#endif
