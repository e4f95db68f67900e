/*
 * huddle-reaper: the small program that stands between huddle and each
 * command it runs (tools/reaper.h), and holds a place's mount namespace
 * (tools/mountns.h). It links only what those need, so a command starts
 * in a fraction of the time huddle's own program would take to load;
 * huddle's main() can play both parts too (tools/reaperexe.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tools/mountns.h"
#include "tools/reaper.h"

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	fprintf(stderr, "huddle-reaper: huddle starts this program itself; "
	    "it is not for running by hand\n");
	return 2;
}
