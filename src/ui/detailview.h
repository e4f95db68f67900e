/*
 * The detail view of one request (Enter, or F5 on a request the hint
 * could not show whole): what is asked verbatim, as a block of numbered
 * lines (a permission's command, a plan's text, any other body), then
 * labelled fields, each value wrapped inside its field:
 *
 *	  1 ▶ rm -rf junkdir && echo x
 *
 *	why flagged  rm -r — deletes recursively
 *	directory    /tmp/work
 *	who asked    carl (bash), to lead
 *	when         12s ago
 *	request      req_1a2b3c4d · permission · pending
 *
 * The fields follow the block; a block too long for the rows the fields
 * leave scrolls in them, and its heading says which rows are on show.
 */
#ifndef HUDDLE_UI_DETAILVIEW_H
#define HUDDLE_UI_DETAILVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "ui/table.h"

/* The width of a field's label column, its gap included. */
#define DETAILVIEW_LABEL_COLS 13
/* The rows a field's value may take; the last one then ends in "…". */
#define DETAILVIEW_FIELD_ROWS 4

/*
 * Field label: value wrapped in cols columns (malloc'd rows, *n of them,
 * at most DETAILVIEW_FIELD_ROWS): the label padded to
 * DETAILVIEW_LABEL_COLS on the first row, the value's continuation rows
 * indented under it, never under the label. Free with
 * permline_rows_free.
 */
char **detailview_field(const char *label, const char *value, int cols,
    size_t *n);

/*
 * The block of request r: its text verbatim, numbered by line, wrapped
 * to cols columns (a permission's command marked where flagged). Rows
 * as permline_rows makes them; *heading (malloc'd) names what it is.
 */
char **detailview_block(const struct table_row *r, int cols, size_t *n,
    char **heading);

/*
 * Draws r's view in the rectangle (y, x, rows, cols): the block from its
 * row *first on (clamped so that scrolling stops at its end), then the
 * fields.
 */
void detailview_draw(const struct table_row *r, int y, int x, int rows,
    int cols, int *first, int64_t now_ms);

#endif
