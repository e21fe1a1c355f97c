/*
 * het_problem_noise.c: the far-lag noise estimate of one two-time matrix
 * (het_problem_noise, documented in het_problem.h).
 *
 * Design: the differences of neighbours along each diagonal of the
 * far-lag region (lag >= L, the last HET_PROBLEM_NOISE_FRAC of the pairs,
 * L lowered until at least HET_PROBLEM_NOISE_MIN differences exist) are
 * pure noise times sqrt(2) where c2 has decayed to its baseline; their
 * median absolute deviation, scaled to a normal sd, is robust to the few
 * that are not.  The median uses a quickselect, so the estimate is O(N^2)
 * per angle like the extraction itself.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "het_problem.h"

#define PB_MAD_SCALE	1.482602218505602	/* 1 / Phi^-1(3/4) */

static void
pb_swap(double *v, size_t a, size_t b)
{
	double t = v[a];

	v[a] = v[b];
	v[b] = t;
}

/*
 * The k-th smallest of v[0..n-1] (0-based), reordering v so that
 * v[0..k-1] <= v[k] <= v[k+1..n-1]: quickselect with a median-of-three
 * pivot kept at lo + 1 and sentinels at both ends of each partition.
 */
static double
pb_select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1, i, j;
	double pivot;

	for (;;) {
		if (hi <= lo + 1) {
			if (hi == lo + 1 && v[hi] < v[lo])
				pb_swap(v, lo, hi);
			return v[k];
		}
		pb_swap(v, lo + (hi - lo) / 2, lo + 1);
		if (v[lo] > v[hi])
			pb_swap(v, lo, hi);
		if (v[lo + 1] > v[hi])
			pb_swap(v, lo + 1, hi);
		if (v[lo] > v[lo + 1])
			pb_swap(v, lo, lo + 1);
		pivot = v[lo + 1];
		i = lo + 1;
		j = hi;
		for (;;) {
			do
				i++;
			while (v[i] < pivot);
			do
				j--;
			while (v[j] > pivot);
			if (j < i)
				break;
			pb_swap(v, i, j);
		}
		v[lo + 1] = v[j];
		v[j] = pivot;
		if (j >= k)
			hi = j - 1;
		if (j <= k)
			lo = i;
	}
}

/* The median of v (n >= 1), reordering v. */
static double
pb_median(double *v, size_t n)
{
	double hi, lo;
	size_t k;

	hi = pb_select_kth(v, n, n / 2);
	if (n % 2 == 1)
		return hi;
	lo = v[0];
	for (k = 1; k < n / 2; k++)
		lo = fmax(lo, v[k]);
	return (lo + hi) / 2;
}

/* Differences in the region lag >= L: (n - L)(n - L - 1) / 2. */
static size_t
pb_ndiff(size_t n, size_t L)
{
	return n >= L + 2 ? (n - L) * (n - L - 1) / 2 : 0;
}

double
het_problem_noise(const double *c2, size_t n, long *lag, size_t *count)
{
	size_t L, total, l, i, j, m = 0;
	double *d, med, sigma;

	if (lag != NULL)
		*lag = 0;
	if (count != NULL)
		*count = 0;
	if (n < 4)
		return NAN;
	total = n * (n - 1) / 2;
	for (L = 1; L < n - 1; L++)
		if ((double)((n - L) * (n - L + 1) / 2) <=
		    HET_PROBLEM_NOISE_FRAC * (double)total)
			break;
	while (L > 1 && pb_ndiff(n, L) < HET_PROBLEM_NOISE_MIN)
		L--;
	if (pb_ndiff(n, L) < HET_PROBLEM_NOISE_MIN)
		return NAN;
	if ((d = malloc(pb_ndiff(n, L) * sizeof(*d))) == NULL)
		return NAN;
	/* along each diagonal j - i = l: elements (i, j) and (i+1, j+1) */
	for (l = L; l + 1 < n; l++)
		for (i = 0; i + l + 1 < n; i++) {
			j = i + l;
			d[m++] = c2[(i + 1) * n + j + 1] - c2[i * n + j];
		}
	med = pb_median(d, m);
	for (i = 0; i < m; i++)
		d[i] = fabs(d[i] - med);
	sigma = PB_MAD_SCALE * pb_median(d, m) / sqrt(2.0);
	free(d);
	if (lag != NULL)
		*lag = (long)L;
	if (count != NULL)
		*count = m;
	return sigma;
}

