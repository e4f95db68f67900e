/*
 * Images as the models take them: the four formats (PNG, JPEG, GIF,
 * WebP), their base64 text, and the width and height read from a
 * format's header. No pixel is decoded: huddle passes images on as they
 * came or refuses them, and needs only to know what they are and how
 * large. Every reader is bounded by the bytes it is given and trusts
 * none of them.
 */
#ifndef HUDDLE_UTIL_IMAGE_H
#define HUDDLE_UTIL_IMAGE_H

#include <stddef.h>

/*
 * The canonical name of a media type the models take ("image/png",
 * "image/jpeg", "image/gif", "image/webp"; any case, and "image/jpg" as
 * image/jpeg), or NULL for any other (NULL included). A static string.
 */
const char *image_type(const char *mime);

/*
 * Whether the len bytes at in are valid base64: the standard alphabet,
 * a length that is a multiple of 4, at most two '=' and only at the end;
 * no blank or line end. *decoded (may be NULL) gets the number of bytes
 * it decodes to.
 */
int image_base64_valid(const char *in, size_t len, size_t *decoded);

/*
 * Decodes base64 text into out, at most cap bytes: decoding stops at
 * cap, at the first '=' and at the first character not of the alphabet.
 * Returns the number of bytes written.
 */
size_t image_base64_decode(const char *in, size_t len, unsigned char *out,
    size_t cap);

/*
 * Reads the width and height of an image of type mime (a name
 * image_type takes) from the header in the len bytes at buf. Returns 0
 * with *w and *h (both at least 1), or -1 when the bytes are not a
 * header of that format or end before its size.
 */
int image_size(const unsigned char *buf, size_t len, const char *mime,
    unsigned *w, unsigned *h);

/*
 * image_size of base64 text, decoding at most `most` bytes of it (the
 * size of a JPEG may come after long metadata; the others' within the
 * first 30 bytes). Returns 0 or -1 as image_size.
 */
int image_base64_size(const char *b64, size_t len, size_t most,
    const char *mime, unsigned *w, unsigned *h);

#endif
