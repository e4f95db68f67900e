/*
 * huddle: a team of LLM agents in one terminal.
 *
 * main() parses the command line, wires the layers together, and owns
 * start-up and orderly shutdown.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: huddle [options]\n"
	    "\n"
	    "Runs a team of LLM agents in one terminal: a lead you talk to and\n"
	    "teammates it spawns, coordinating through durable inboxes.\n"
	    "\n"
	    "options:\n"
	    "  -h, --help       show this help and exit\n"
	    "  -V, --version    show the version and exit\n"
	    "\n"
	    "State lives in <workdir>/.huddle/ (see huddle(1)).\n");
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("huddle %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'huddle --help' for the options.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "huddle: unexpected argument '%s'\n"
		    "Try 'huddle --help' for the options.\n", argv[optind]);
		return 2;
	}
	fprintf(stderr, "huddle: the team is not built yet; this version "
	    "provides --version and --help only\n");
	return 1;
}
