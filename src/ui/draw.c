/*
 * Text onto the screen, in UTF-8 or ASCII (see draw.h).
 */
#include "config.h"

#include <curses.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

#include "ui/draw.h"
#include "ui/text.h"

static int draw_ascii_only;

void
draw_init(void)
{
	const char *set = nl_langinfo(CODESET);

	draw_ascii_only = set == NULL || (strcmp(set, "UTF-8") != 0 &&
	    strcmp(set, "utf8") != 0);
}

void
draw_text(const char *s, size_t len)
{
	char small[256], *out;

	if (!draw_ascii_only) {
		addnstr(s, (int)len);
		return;
	}
	out = len <= sizeof small ? small : malloc(len);
	if (out == NULL)
		return;
	addnstr(out, (int)text_ascii(s, len, out));
	if (out != small)
		free(out);
}

void
draw_text_at(int y, int x, const char *s, size_t len)
{
	move(y, x);
	draw_text(s, len);
}

void
draw_cut_at(int y, int x, const char *s, int width)
{
	char *cut;

	if (width < 1)
		return;
	cut = text_cut(s, strlen(s), width);
	draw_text_at(y, x, cut, strlen(cut));
	free(cut);
}
