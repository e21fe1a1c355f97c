#include "config.h"

/*
 * png_probe.c: the facts of a PNG file that tests/t_report.sh checks,
 * read with cairo's own PNG reader.
 *   png_probe FILE          prints "WIDTH HEIGHT"
 *   png_probe FILE X Y      prints "R G B" of pixel (X, Y), 0-255
 *   png_probe FILE X0 Y0 X1 Y1
 *                           prints how many pixels of the region
 *                           [X0, X1) x [Y0, Y1) are not white
 *   png_probe FILE X0 Y0 X1 Y1 R G B
 *                           prints how many pixels there are R G B
 * Exit 1 when the file cannot be read or the pixel or region is
 * outside.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cairo.h>

/* The pixel (x, y) of s as 0xRRGGBB. */
static uint32_t
pixel(cairo_surface_t *s, int x, int y)
{
	return *(uint32_t *)(void *)(cairo_image_surface_get_data(s) +
	    (size_t)y * (size_t)cairo_image_surface_get_stride(s) +
	    (size_t)x * 4) & 0xffffffu;
}

/* The count of a region's pixels that are not white, or are R G B. */
static int
region(cairo_surface_t *s, int argc, char **argv)
{
	int x0 = atoi(argv[2]), y0 = atoi(argv[3]), x1 = atoi(argv[4]),
	    y1 = atoi(argv[5]), x, y;
	uint32_t want = 0xffffffu;
	long n = 0;

	if (argc == 9)
		want = (uint32_t)atoi(argv[6]) << 16 |
		    (uint32_t)atoi(argv[7]) << 8 | (uint32_t)atoi(argv[8]);
	if (x0 < 0 || y0 < 0 || x1 > cairo_image_surface_get_width(s) ||
	    y1 > cairo_image_surface_get_height(s) || x0 > x1 || y0 > y1)
		return 1;
	cairo_surface_flush(s);
	for (y = y0; y < y1; y++)
		for (x = x0; x < x1; x++)
			n += argc == 9 ? pixel(s, x, y) == want :
			    pixel(s, x, y) != want;
	printf("%ld\n", n);
	cairo_surface_destroy(s);
	return 0;
}

int
main(int argc, char **argv)
{
	cairo_surface_t *s;
	uint32_t p;
	int w, h, x, y;

	if (argc != 2 && argc != 4 && argc != 6 && argc != 9) {
		fprintf(stderr, "usage: png_probe FILE [X Y | X0 Y0 X1 Y1 "
		    "[R G B]]\n");
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
	if (argc >= 6)
		return region(s, argc, argv);
	x = atoi(argv[2]);
	y = atoi(argv[3]);
	if (x < 0 || y < 0 || x >= w || y >= h)
		return 1;
	cairo_surface_flush(s);
	p = pixel(s, x, y);
	printf("%u %u %u\n", (unsigned)(p >> 16 & 255), (unsigned)(p >> 8 &
	    255), (unsigned)(p & 255));
	cairo_surface_destroy(s);
	return 0;
}
