/*
 * A project's own MCP servers (mcpoffers.c): those of the working
 * tree's .mcp.json, each offered to the person once.
 */
#ifndef HUDDLE_AGENT_MCPOFFERS_H
#define HUDDLE_AGENT_MCPOFFERS_H

#include <stddef.h>

struct team;

/* Reads the working tree's .mcp.json and what the person answered
 * before; notices name what is refused or ignored. Returns how many of
 * its servers may yet join (approved, or to be asked). */
size_t mcpoffers_open(struct team *t);

/* Adds the servers approved before to the team's set (made by then). */
void mcpoffers_start(struct team *t);

/* Offers the person each server not answered yet (a permission request
 * from huddle); an offer a previous run left pending is withdrawn
 * first and asked again. */
void mcpoffers_ask(struct team *t);

/* Takes in the decisions made since: an answer is kept in the store,
 * an approved server joins the set. */
void mcpoffers_settle(struct team *t);

/* Whether server name came from the project's .mcp.json (approved):
 * the settings' list of tools allowed without asking does not cover
 * it. */
int mcpoffers_is_project(struct team *t, const char *name);

/* /mcp's lines on offers not approved (malloc'd), or NULL. */
char *mcpoffers_text(struct team *t);

/* Frees what mcpoffers_open made. */
void mcpoffers_close(struct team *t);

#endif
