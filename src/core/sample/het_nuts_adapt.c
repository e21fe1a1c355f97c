/*
 * het_nuts_adapt.c: Stan's warmup adaptation for het_nuts: dual
 * averaging of the step size (Hoffman and Gelman 2014, section 3.2) and
 * windowed estimation of the metric.
 *
 * Design: the window schedule reproduces Stan's windowed_adaptation: a
 * counter over warmup transitions, slow windows from init_buffer on whose
 * sizes double, the last one stretched so that the next would not fit
 * before the terminal buffer.  Samples are accumulated by Welford's
 * method (variances, or the full covariance for the dense metric); the
 * new metric is shrunk with weight 5 / (n + 5) towards the initial
 * metric when the caller gave one (het_nuts_set_metric), else towards
 * 1e-3 I as Stan does.  The
 * dense metric is factored here (Cholesky) so that momentum draws are a
 * triangular solve.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "het_nuts_impl.h"
#include "het_util.h"

void
het_nuts_da_restart(struct het_nuts *s)
{
	s->da_count = 0;
	s->s_bar = 0;
	s->x_bar = 0;
	s->mu = log(10 * s->eps);
}

void
het_nuts_da_learn(struct het_nuts *s, double accept)
{
	double	eta, x, xeta, t;

	s->da_count++;
	t = (double)s->da_count;
	accept = accept > 1 ? 1 : accept;
	eta = 1 / (t + s->cfg.t0);
	s->s_bar = (1 - eta) * s->s_bar + eta * (s->cfg.target_accept -
	    accept);
	x = s->mu - s->s_bar * sqrt(t) / s->cfg.gamma;
	xeta = pow(t, -s->cfg.kappa);
	s->x_bar = (1 - xeta) * s->x_bar + xeta * x;
	s->eps = exp(x);
}

/* ---- metric adaptation -------------------------------------------- */

void
het_nuts_windows_setup(struct het_nuts *s)
{
	long	nw = s->cfg.num_warmup;

	s->init_buffer = s->cfg.init_buffer;
	s->term_buffer = s->cfg.term_buffer;
	s->base_window = s->cfg.base_window;
	s->adapt_windows = s->cfg.adapt_metric && nw >= 20;
	if (s->adapt_windows && s->init_buffer + s->base_window +
	    s->term_buffer > nw) {
		s->init_buffer = (long)(0.15 * (double)nw);
		s->term_buffer = (long)(0.1 * (double)nw);
		s->base_window = nw - (s->init_buffer + s->term_buffer);
	}
	s->win_counter = 0;
	s->win_size = s->base_window;
	s->win_next = s->init_buffer + s->win_size - 1;
	s->est_n = 0;
}

static int
in_window(const struct het_nuts *s)
{
	return s->win_counter >= s->init_buffer &&
	    s->win_counter < s->cfg.num_warmup - s->term_buffer &&
	    s->win_counter != s->cfg.num_warmup;
}

static int
end_window(const struct het_nuts *s)
{
	return s->win_counter == s->win_next &&
	    s->win_counter != s->cfg.num_warmup;
}

static void
next_window(struct het_nuts *s)
{
	long	last = s->cfg.num_warmup - s->term_buffer - 1;

	if (s->win_next == last)
		return;
	s->win_size *= 2;
	s->win_next = s->win_counter + s->win_size;
	if (s->win_next != last && s->win_next + 2 * s->win_size >= last + 1)
		s->win_next = last;
}

int
het_nuts_cholesky(const double *a, double *l, size_t n)
{
	size_t	i, j;

	/* het_chol in place on the lower triangle, zeros above. */
	memset(l, 0, n * n * sizeof *l);
	for (i = 0; i < n; i++)
		for (j = 0; j <= i; j++)
			l[i * n + j] = a[i * n + j];
	return het_chol(n, l);
}

/*
 * Welford update of the (co)variance of q; at the end of a slow window
 * replace the metric.  Returns 0 (no change), 1 (metric replaced) or -1
 * (the estimate is not finite or not positive definite).
 */
int
het_nuts_learn_metric(struct het_nuts *s)
{
	double	d, nn, reg, *m2 = s->est_m2, *mean = s->est_mean;
	const double *q = s->z.q;
	size_t	i, j, n = s->n;

	if (in_window(s)) {
		s->est_n++;
		for (i = 0; i < n; i++) {
			s->tmp[i] = q[i] - mean[i];
			mean[i] += s->tmp[i] / (double)s->est_n;
		}
		if (!s->cfg.dense_metric) {
			for (i = 0; i < n; i++)
				m2[i] += s->tmp[i] * (q[i] - mean[i]);
		} else {
			for (i = 0; i < n; i++)
				for (j = 0; j < n; j++)
					m2[i * n + j] += s->tmp[i] *
					    (q[j] - mean[j]);
		}
	}
	if (!end_window(s)) {
		s->win_counter++;
		return 0;
	}
	next_window(s);
	s->win_counter++;
	nn = (double)s->est_n;
	reg = 1e-3 * 5 / (nn + 5);
	for (i = 0; i < s->nm; i++)
		s->minv[i] = nn / (nn + 5) * (m2[i] / (nn - 1));
	if (s->have_minv0) {
		for (i = 0; i < s->nm; i++)
			s->minv[i] += 5 / (nn + 5) * s->minv0[i];
		reg = 0;
	}
	if (!s->cfg.dense_metric) {
		for (i = 0; i < n; i++)
			s->minv[i] += reg;
	} else {
		for (i = 0; i < n; i++) {
			s->minv[i * n + i] += reg;
			for (j = 0; j < i; j++) {	/* exact symmetry */
				d = 0.5 * (s->minv[i * n + j] +
				    s->minv[j * n + i]);
				s->minv[i * n + j] = s->minv[j * n + i] = d;
			}
		}
	}
	s->est_n = 0;
	memset(mean, 0, n * sizeof *mean);
	memset(m2, 0, s->nm * sizeof *m2);
	for (i = 0; i < n; i++) {
		d = s->cfg.dense_metric ? s->minv[i * n + i] : s->minv[i];
		if (!isfinite(d) || !(d > 0))
			return -1;
	}
	if (s->cfg.dense_metric && het_nuts_cholesky(s->minv, s->chol, n) != 0)
		return -1;
	return 1;
}

void
het_nuts_metric_reset(struct het_nuts *s)
{
	size_t	i, n = s->n;

	if (s->have_minv0) {
		memcpy(s->minv, s->minv0, s->nm * sizeof *s->minv);
		if (s->cfg.dense_metric)
			memcpy(s->chol, s->chol0, s->nm * sizeof *s->chol);
		return;
	}
	if (!s->cfg.dense_metric) {
		for (i = 0; i < n; i++)
			s->minv[i] = 1;
		return;
	}
	memset(s->minv, 0, s->nm * sizeof *s->minv);
	memset(s->chol, 0, s->nm * sizeof *s->chol);
	for (i = 0; i < n; i++)
		s->minv[i * n + i] = s->chol[i * n + i] = 1;
}
