#include "config.h"

/*
 * png_probe.c: the facts of a PNG file that tests/t_report.sh checks,
 * read with cairo's own PNG reader.
 *   png_probe FILE          prints "WIDTH HEIGHT"
 *   png_probe FILE X Y      prints "R G B" of pixel (X, Y), 0-255
 * Exit 1 when the file cannot be read or the pixel is outside.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cairo.h>

int
main(int argc, char **argv)
{
	cairo_surface_t *s;
	uint32_t p;
	int w, h, x, y;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: png_probe FILE [X Y]\n");
		return 2;
	}
	s = cairo_image_surface_create_from_png(argv[1]);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "png_probe: %s: %s\n", argv[1],
		    cairo_status_to_string(cairo_surface_status(s)));
		return 1;
	}
	w = cairo_image_surface_get_width(s);
	h = cairo_image_surface_get_height(s);
	if (argc == 2) {
		printf("%d %d\n", w, h);
		return 0;
	}
	x = atoi(argv[2]);
	y = atoi(argv[3]);
	if (x < 0 || y < 0 || x >= w || y >= h)
		return 1;
	cairo_surface_flush(s);
	p = *(uint32_t *)(void *)(cairo_image_surface_get_data(s) +
	    (size_t)y * (size_t)cairo_image_surface_get_stride(s) +
	    (size_t)x * 4);
	printf("%u %u %u\n", (unsigned)(p >> 16 & 255), (unsigned)(p >> 8 &
	    255), (unsigned)(p & 255));
	cairo_surface_destroy(s);
	return 0;
}
