/*
 * Enumeration names both ways (see names.h).
 */
#include "config.h"

#include <string.h>

#include "util/names.h"

const char *
names_get(const char *const *names, size_t n, int value)
{
	if (value < 0 || (size_t)value >= n || names[value] == NULL)
		return "unknown";
	return names[value];
}

int
names_find(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < n; i++) {
		if (names[i] != NULL && strcmp(name, names[i]) == 0)
			return (int)i;
	}
	return -1;
}
