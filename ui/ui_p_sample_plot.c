/*
 * ui_p_sample_plot.c: the small charts of the Sampling and Results panels
 * and their number formatting: a line chart (braille dots, two by four
 * per cell, or '*' in ASCII mode) for traces over several rows, a
 * one-row sparkline (eighth blocks, or an ASCII ramp) for the traces of
 * a shard's chains, and a histogram of vertical bars.  Each column shows
 * the mean (trace) or count (histogram) of the values that fall in it,
 * so any number of draws fits any width.  Pure rendering; loop thread.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_p_sample.h"

void
sp_fmt(char *buf, size_t len, double v, int prec)
{
	double a = fabs(v);

	if (v != v)
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
	else if (a != 0 && (a < 1e-3 || a >= 1e6))
		snprintf(buf, len, "%.*e", prec > 2 ? prec - 2 : 1, v);
	else
		snprintf(buf, len, "%.*g", prec, v);
}

/* v in at most w characters, losing digits before width. */
void
sp_fmt_w(char *buf, size_t len, double v, int prec, int w)
{
	char *e;
	int p;

	for (p = prec; p >= 1; p--) {
		sp_fmt(buf, len, v, p);
		/* "1.2e-05" -> "1.2e-5": exponents without padding. */
		if ((e = strchr(buf, 'e')) != NULL) {
			e++;
			if (*e == '+')
				memmove(e, e + 1, strlen(e));
			else if (*e == '-')
				e++;
			while (*e == '0' && e[1] != '\0')
				memmove(e, e + 1, strlen(e));
		}
		if ((int)strlen(buf) <= w)
			return;
	}
}

attr_t
sp_rhat_attr(double rhat, double max_r_hat)
{
	if (rhat != rhat)
		return ui_color_attr(UI_C_DIM);
	if (rhat < max_r_hat)
		return ui_color_attr(UI_C_INFO);
	return ui_color_attr(UI_C_ERROR) | A_BOLD;
}

static void
braille(char *out, unsigned bits)
{
	unsigned cp = 0x2800 + bits;

	out[0] = (char)(0xe0 | (cp >> 12));
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	out[3] = '\0';
}

void
sp_trace(struct ui *ui, WINDOW *w, int y, int x, int h, int wd,
    const double *v, size_t n, size_t stride, double lo, double hi, attr_t a)
{
	static const unsigned bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 },
	    { 0x08, 0x10, 0x20, 0x80 } };
	int utf8 = ui->scr.term.utf8, dx = utf8 ? 2 : 1, dy = utf8 ? 4 : 1;
	int W = wd * dx, H = h * dy, col, row, prev = -1, r0, r1, r;
	unsigned char *cells;
	size_t k, k0, k1, cnt;
	double sum, val;
	char cell[8];

	if (n == 0 || wd <= 0 || h <= 0)
		return;
	if (!(lo < hi)) {
		lo = INFINITY;
		hi = -INFINITY;
		for (k = 0; k < n; k++) {
			val = v[k * stride];
			if (isfinite(val)) {
				lo = fmin(lo, val);
				hi = fmax(hi, val);
			}
		}
		if (!(lo <= hi))
			return;
		if (hi - lo <= 1e-12 * fmax(fabs(lo), 1e-300)) {
			lo -= 0.5;
			hi += 0.5;
		}
	}
	cells = ui_xcalloc((size_t)(wd * h), 1);
	for (col = 0; col < W; col++) {
		/* The draws of this dot column: their mean. */
		k0 = (size_t)((double)col * (double)n / (double)W);
		k1 = (size_t)((double)(col + 1) * (double)n / (double)W);
		if (k1 <= k0)
			k1 = k0 + 1;
		if (k0 >= n)
			break;
		sum = 0;
		cnt = 0;
		for (k = k0; k < k1 && k < n; k++)
			if (isfinite(v[k * stride])) {
				sum += v[k * stride];
				cnt++;
			}
		if (cnt == 0)
			continue;
		val = (sum / (double)cnt - lo) / (hi - lo);
		val = val < 0 ? 0 : val > 1 ? 1 : val;
		row = (int)((1 - val) * (H - 1) + 0.5);
		r0 = r1 = row;
		if (prev >= 0 && prev != row) {
			/* Join to the previous column so the line reads. */
			r0 = prev < row ? prev + 1 : row;
			r1 = prev > row ? prev - 1 : row;
			if (r0 > r1)
				r0 = r1 = row;
		}
		for (r = r0; r <= r1; r++)
			cells[(r / dy) * wd + col / dx] |= utf8 ?
			    bit[col % 2][r % 4] : 1;
		prev = row;
	}
	for (row = 0; row < h; row++)
		for (col = 0; col < wd; col++) {
			if (cells[row * wd + col] == 0)
				continue;
			if (utf8)
				braille(cell, cells[row * wd + col]);
			else
				snprintf(cell, sizeof(cell), "*");
			ui_put(w, y + row, x + col, 1, a, cell);
		}
	free(cells);
}

void
sp_spark(struct ui *ui, WINDOW *w, int y, int x, int wd, const double *v,
    size_t n, size_t stride, double lo, double hi, attr_t a)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	size_t k, k0, k1, cnt;
	double sum, f;
	int col, lev;

	if (n == 0 || wd <= 0 || !(lo < hi))
		return;
	for (col = 0; col < wd; col++) {
		k0 = (size_t)((double)col * (double)n / (double)wd);
		k1 = (size_t)((double)(col + 1) * (double)n / (double)wd);
		if (k1 <= k0)
			k1 = k0 + 1;
		if (k0 >= n)
			break;
		sum = 0;
		cnt = 0;
		for (k = k0; k < k1 && k < n; k++)
			if (isfinite(v[k * stride])) {
				sum += v[k * stride];
				cnt++;
			}
		if (cnt == 0)
			continue;
		f = (sum / (double)cnt - lo) / (hi - lo);
		f = f < 0 ? 0 : f > 1 ? 1 : f;
		lev = 1 + (int)(f * 7 + 0.5);	/* 1 .. 8: never blank */
		ui_put(w, y, x + col, 1, a, g->spark[lev]);
	}
}

size_t
sp_hist(struct ui *ui, WINDOW *w, int y, int x, int h, int wd,
    const double *v, size_t n, size_t stride, double lo, double hi)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	attr_t a = ui_color_attr(UI_C_GRAPH);
	size_t *bin, k, top = 0;
	long b;
	int col, row, eighths, part;

	if (n == 0 || wd <= 0 || h <= 0 || !(lo < hi))
		return 0;
	bin = ui_xcalloc((size_t)wd, sizeof(size_t));
	for (k = 0; k < n; k++) {
		if (!isfinite(v[k * stride]))
			continue;
		b = (long)floor((v[k * stride] - lo) / (hi - lo) * wd);
		if (b == wd)
			b = wd - 1;	/* the maximum itself */
		if (b < 0 || b >= wd)
			continue;
		bin[b]++;
	}
	for (col = 0; col < wd; col++)
		top = bin[col] > top ? bin[col] : top;
	for (col = 0; col < wd && top > 0; col++) {
		eighths = (int)((double)bin[col] / (double)top * h * 8 + 0.5);
		if (bin[col] > 0 && eighths < 1)
			eighths = 1;
		for (row = 0; row < h; row++) {
			part = eighths - 8 * row;
			if (part <= 0)
				break;
			ui_put(w, y + h - 1 - row, x + col, 1, a,
			    g->spark[part >= 8 ? 8 : part]);
		}
	}
	(void)ui;
	free(bin);
	return top;
}
