/*
 * bench_basin.c: does the default fit reach the true basin? (`make
 * bench`, docs/PERFORMANCE.md section "Basin").
 *
 * Five truth sets of the two-component model (heterodyne-spec.md §1,
 * all 14 physics parameters free, individual contrast/offset per angle)
 * on 150 frames (start_frame 1) and 8 to 12 angles spread over (-90, 90)
 * degrees: 30 to 38 free parameters, 89,400 to 134,100 pairs, seeded
 * Gaussian noise of sd 0.003 to 0.01; q = 0.01 1/Å and dt = 0.1 s, but
 * set 2 the demo's physics (q = 0.0054 1/Å, dt = 0.01 s).  Moderate
 * bounds: D0 in [1, 1e5], alpha and beta in [-2, 2], D_offset in
 * [-1e3, 1e3], v0 in [1e-3, 1e4], v_offset in [-100, 100], f0 and f3 in
 * [0, 1], f1 in [-1, 1], f2 in [-100, 100], phi0 in [-10, 10]; contrast
 * and offset from the table.  Per truth set ten starts: every physics
 * parameter of the truth times 1 +- u, u uniform in [0.1, 0.3], random
 * sign (seeded), clipped into the bounds; contrast and offset from the
 * quantile estimate, as `hetui fit` starts them.
 *
 * Every fit uses het_fit_default_options (trf, tolerances 1e-8,
 * x_scale jac) with the linear loss (as the demo configuration and the
 * SciPy peer; BENCH_BASIN_SOFT_L1 set: the configuration default
 * soft_l1) and the true noise sigma, on a pool of 2 threads.  The true
 * minimum is the default fit started at the truth.  From each start two
 * fits run: "local" (one local fit: basin = -1, the engine before the
 * basin strategy) and "default" (basin = 0).  Printed per start: cost /
 * true-minimum cost, CPU seconds, the physics parameters on a bound, and
 * which start won; per truth set the starts within 1e-3 of the true
 * minimum ("success") and the CPU ratio default / local (median and
 * maximum over the ten starts).
 *
 * With a directory argument every truth set is also written there for
 * bench/peer_basin.py (SciPy TRF from the same starts): Bk.json
 * (setup, truth, starts, bounds, hetui's numbers) and Bk.y (the data,
 * float64 in the machine's byte order, pairs angle-major then row-major
 * i < j).  Not a test: it never fails on quality or speed.
 *
 * Environment (development runs): BENCH_BASIN_ONLY, digits of the truth
 * sets to run ("125"); BENCH_BASIN_NSTART, starts per set (10);
 * BENCH_BASIN_MODES, "l" local and/or "d" default ("ld");
 * BENCH_BASIN_NF, frames of every set; BENCH_BASIN_FIRST, the first
 * start to fit (the summary then counts the others as failures);
 * BENCH_BASIN_MASK, the lever mask of the default fit (het_fit_basin.c).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/basin_sim.h"
#include "het_fit.h"
#include "bench_util.h"

#define NTHREADS	2
#define NSTART_MAX	50
#define SUCCESS_TOL	1e-3

static const struct basin_set sets[] = {
	{ 150, 8, 0.01, 0.1, 0.010, 11, { 1500.0, 0.25, 20.0, 6000.0, -0.3,
	    50.0, 500.0, 0.2, 5.0, 0.35, 0.01, 30.0, 0.1, 4.0 } },
	{ 150, 8, 0.0054, 0.01, 0.010, 77, { 9000.0, 0.1, 150.0, 60000.0,
	    -0.35, 800.0, 900.0, -0.5, 40.0, 0.55, -0.6, 0.5, 0.2, 2.5 } },
	{ 150, 10, 0.01, 0.1, 0.003, 33, { 2500.0, 0.5, 10.0, 9000.0, 0.1,
	    30.0, 800.0, 0.1, -8.0, 0.3, 0.03, 20.0, 0.15, 2.0 } },
	{ 150, 8, 0.01, 0.1, 0.008, 44, { 1200.0, -0.4, 60.0, 5000.0, -0.1,
	    20.0, 200.0, 0.5, 20.0, 0.2, 0.05, 5.0, 0.25, 6.0 } },
	{ 150, 12, 0.01, 0.1, 0.006, 55, { 3000.0, 0.3, 100.0, 12000.0, -0.5,
	    200.0, 600.0, -0.2, 15.0, 0.4, -0.05, 2.0, 0.3, -5.0 } },
};

struct fit_line {
	double	 cost, cpu, wall;
	long	 iter;
	size_t	 best, nstarts;
	const char *reason;
	char	 bound[128];	/* physics parameters on a bound */
};

static void
die(const char *what, const struct het_error *err)
{
	fprintf(stderr, "bench_basin: %s: %s\n", what, err->msg);
	exit(1);
}

static void
fit(struct het_pool *pool, const struct basin_sim *S, const double *x0,
    const struct basin_set *ts, int local, struct fit_line *fl)
{
	struct het_fit_options o;
	struct het_fit_result *res;
	struct het_error err;
	double c0;

	het_fit_default_options(&o);
	o.noise_sigma = ts->sigma;
	o.basin = local ? -1 : getenv("BENCH_BASIN_MASK") != NULL ?
	    atoi(getenv("BENCH_BASIN_MASK")) : 0;
	if (getenv("BENCH_BASIN_SOFT_L1") == NULL)
		o.nlsq.loss = HET_LOSS_LINEAR;
	c0 = cpu_s();
	if (het_fit_run(pool, S->r, x0, S->lo, S->hi, &o, &res, &err) !=
	    HET_OK)
		die("fit", &err);
	fl->cpu = cpu_s() - c0;
	fl->wall = res->wall_time;
	fl->cost = res->cost;
	fl->iter = res->iterations;
	fl->best = res->best;
	fl->nstarts = res->nstarts;
	fl->reason = het_nlsq_reason_name(res->reason);
	fl->bound[0] = '\0';
	for (size_t c = 0; c < HET_P_HET_COUNT; c++)
		if (res->x[c] - res->lo[c] <= 1e-6 * (res->hi[c] -
		    res->lo[c]) || res->hi[c] - res->x[c] <= 1e-6 *
		    (res->hi[c] - res->lo[c]))
			snprintf(fl->bound + strlen(fl->bound),
			    sizeof(fl->bound) - strlen(fl->bound), " %s",
			    res->names[c]);
	het_fit_result_free(res);
}

/* Bk.json and Bk.y for the SciPy peer. */
static int
dump(const char *dir, size_t b, const struct basin_sim *S, double cost_min,
    const struct fit_line *fl, const struct basin_set *ts)
{
	char path[4096];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/B%zu.y", dir, b + 1);
	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(S->y, sizeof(double), S->n, f) != S->n || fclose(f) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/B%zu.json", dir, b + 1);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "{\n\"name\": \"B%zu\", \"n_frames\": %zu, \"n_angles\": "
	    "%zu,\n\"q\": %.17g, \"dt\": %.17g, \"start_frame\": 1, "
	    "\"sigma\": %.17g,\n", b + 1, S->nf, S->na, ts->q, ts->dt,
	    ts->sigma);
	print_array(f, "phi", S->phi, S->na);
	print_array(f, "truth", S->truth, S->p);
	print_array(f, "lo", S->lo, S->p);
	print_array(f, "hi", S->hi, S->p);
	fprintf(f, "\"starts\": [\n");
	for (i = 0; i < S->ns; i++) {
		fprintf(f, "[");
		for (size_t k = 0; k < S->p; k++)
			fprintf(f, "%s%.17g", k ? ", " : "",
			    S->X0[i * S->p + k]);
		fprintf(f, "]%s\n", i + 1 < S->ns ? "," : "");
	}
	fprintf(f, "],\n\"cost_truth\": %.17g,\n\"cost_min\": %.17g,\n"
	    "\"hetui_cost\": [", S->cost_noise, cost_min);
	for (i = 0; i < S->ns; i++)
		fprintf(f, "%s%.17g", i ? ", " : "", fl[i].cost);
	fprintf(f, "],\n\"hetui_cpu\": [");
	for (i = 0; i < S->ns; i++)
		fprintf(f, "%s%.6f", i ? ", " : "", fl[i].cpu);
	fprintf(f, "]\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	size_t nb = sizeof(sets) / sizeof(sets[0]), b, i, ns = 10, nf = 0;
	size_t first = 0;
	struct fit_line fl[2][NSTART_MAX], ft;
	struct het_pool *pool;
	struct het_error err;
	struct basin_sim *S;
	const char *only = getenv("BENCH_BASIN_ONLY");
	const char *modes = getenv("BENCH_BASIN_MODES");
	double cmin, rat[NSTART_MAX], tot[2] = { 0, 0 };
	size_t nok[2], sum_ok[2] = { 0, 0 }, sum_n = 0;
	char rows[8][256];
	int m, run[2];

	if (getenv("BENCH_BASIN_FIRST") != NULL)
		first = (size_t)atol(getenv("BENCH_BASIN_FIRST"));
	if (getenv("BENCH_BASIN_NF") != NULL)
		nf = (size_t)atol(getenv("BENCH_BASIN_NF"));
	if (getenv("BENCH_BASIN_NSTART") != NULL)
		ns = (size_t)atol(getenv("BENCH_BASIN_NSTART"));
	if (ns < 1 || ns > NSTART_MAX)
		ns = 10;
	run[0] = modes == NULL || strchr(modes, 'l') != NULL;
	run[1] = modes == NULL || strchr(modes, 'd') != NULL;
	het_pool_blas_single_threaded();
	if ((pool = het_pool_alloc(NTHREADS, &err)) == NULL)
		die("pool", &err);
	memset(rows, 0, sizeof(rows));
	for (b = 0; b < nb; b++) {
		char digit = (char)('1' + (int)b);

		if (only != NULL && strchr(only, digit) == NULL)
			continue;
		if ((S = basin_sim_new(&sets[b], ns, nf, &err)) == NULL)
			die("simulation", &err);
		fit(pool, S, S->truth, &sets[b], 0, &ft);
		cmin = ft.cost;
		printf("truth set %zu: %zu frames x %zu angles, %zu pairs, "
		    "%zu parameters, noise %g; true minimum (default fit "
		    "from the truth) cost %.6g = %.6f x the noise cost, "
		    "%.2f s cpu%s%s\n", b + 1, S->nf, S->na, S->n, S->p,
		    sets[b].sigma, cmin, cmin / S->cost_noise, ft.cpu,
		    ft.bound[0] != '\0' ? ", on a bound:" : "", ft.bound);
		memset(fl, 0, sizeof(fl));
		nok[0] = nok[1] = 0;
		for (i = 0; i < ns; i++) {
			if (i < first)
				continue;
			printf("  start %zu:", i);
			for (m = 0; m < 2; m++) {
				if (!run[m])
					continue;
				fit(pool, S, S->X0 + i * S->p, &sets[b],
				    m == 0, &fl[m][i]);
				if (fl[m][i].cost <= cmin * (1 + SUCCESS_TOL))
					nok[m]++;
				tot[m] += fl[m][i].cpu;
				printf(" %s cost/min %.4f cpu %.2f s iter %ld "
				    "%s", m ? "| default" : "local",
				    fl[m][i].cost / cmin, fl[m][i].cpu,
				    fl[m][i].iter, fl[m][i].reason);
				if (fl[m][i].bound[0] != '\0')
					printf(" [bound:%s]", fl[m][i].bound);
				if (m && fl[m][i].nstarts > 1)
					printf(" (start %zu of %zu won)",
					    fl[m][i].best, fl[m][i].nstarts);
			}
			printf("\n");
			fflush(stdout);
		}
		for (m = 0; m < 2; m++)
			sum_ok[m] += nok[m];
		sum_n += ns;
		for (i = 0; i < ns; i++)
			rat[i] = run[0] && run[1] && fl[0][i].cpu > 0 ?
			    fl[1][i].cpu / fl[0][i].cpu : NAN;
		qsort(rat, ns, sizeof(double), cmp_double);
		snprintf(rows[b], sizeof(rows[b]), "| %zu | %zux%zu | %zu | "
		    "%g | %zu/%zu | %zu/%zu | %.2f | %.2f |", b + 1, S->nf,
		    S->na, S->p, sets[b].sigma, nok[0], ns, nok[1], ns,
		    rat[ns / 2], rat[ns - 1]);
		if (argc > 1 && dump(argv[1], b, S, cmin, fl[run[1]],
		    &sets[b]) != 0) {
			fprintf(stderr, "bench_basin: cannot write %s/B%zu.*\n",
			    argv[1], b + 1);
			return 1;
		}
		basin_sim_free(S);
	}
	het_pool_free(pool);
	printf("\n| set | frames x angles | parameters | noise | local: "
	    "success | default: success | cpu default/local median | "
	    "max |\n|---|---|---|---|---|---|---|---|\n");
	for (b = 0; b < nb; b++)
		if (rows[b][0] != '\0')
			printf("%s\n", rows[b]);
	printf("all: local %zu/%zu (%.1f s cpu), default %zu/%zu (%.1f s "
	    "cpu)\n", sum_ok[0], sum_n, tot[0], sum_ok[1], sum_n, tot[1]);
	return 0;
}
