# peer_stan.R: the Stan peer of bench/bench_cmc.c (`make bench`).
#
# Usage: Rscript peer_stan.R [--check-only | --compare-only] [--dense]
#            [--warmup W] [--draws D] [--cores N] [--accept PCT]
#            [--seed S] MODEL.stan SHARD.json [HETUI.json]
#
# Compiles bench/stan/het_shard.stan (timed apart), checks it against
# hetui on the shard bench_cmc wrote: the model c2 at the truth (max abs
# difference), the log density and its gradient in the unconstrained
# coordinates at the truth and at a moved point (the coordinates are the
# same in both programs); then samples 4 chains x (500 warmup + 1000
# draws) from the truth, seed 42 (--seed), diagonal metric (--dense: Stan's
# dense_e, as bench_cmc -D), adapt_delta 0.85 as hetui's default target
# acceptance (--accept PCT: PCT / 100, as bench_cmc -a), each chain in
# a forked process, N at a
# time (default: the number of cores, at most 4).  Reports sampling wall time, the CPU time of the
# chains (user + system time of the children), bulk ESS per parameter
# (rstan::ess_bulk, the rank-normalised ESS of Vehtari et al. 2021, as
# hetui's het_diag), R-hat, divergences, and, given hetui's result file,
# the comparison: per parameter the difference of the means in units of
# its Monte Carlo standard error and the ratio of the sds, and the ratio
# of min bulk ESS per CPU-second.  Stan's figures are saved next to the
# shard (SHARD_stan.json); --compare-only redoes the comparison from
# them without sampling.  Exit status 1 when the check fails.
suppressPackageStartupMessages({
  library(rstan)
  library(jsonlite)
})

compare <- function(hres, st) {
  mn <- st$mean; sdv <- st$sd; ess <- st$ess_bulk; cpu <- st$cpu
  nwarm <- st$warmup; ndraw <- st$draws; wall <- st$wall; cores <- st$cores
  pnames <- st$names
  # MCSE of the mean: sd / sqrt(ess); of the sd: about sd / sqrt(2 ess).
  se_m <- sqrt(sdv^2 / ess + hres$sd^2 / hres$ess_bulk)
  zm <- (hres$mean - mn) / se_m
  rs <- hres$sd / sdv
  se_r <- sqrt(1 / (2 * ess) + 1 / (2 * hres$ess_bulk))
  zs <- (rs - 1) / se_r
  cat(sprintf("%-18s %12s %12s %8s %10s %10s %8s %7s %7s\n", "parameter",
              "mean_hetui", "mean_stan", "z_mean", "sd_hetui", "sd_stan",
              "sd_ratio", "ess_h", "ess_s"))
  for (k in seq_along(pnames))
    cat(sprintf("%-18s %12.6g %12.6g %8.2f %10.4g %10.4g %8.3f %7.0f %7.0f\n",
                pnames[k], hres$mean[k], mn[k], zm[k], hres$sd[k], sdv[k],
                rs[k], hres$ess_bulk[k], ess[k]))
  cat(sprintf("compare max |z_mean| %.2f, max |z_sd| %.2f, sd ratio %.3f..%.3f\n",
              max(abs(zm)), max(abs(zs)), min(rs), max(rs)))
  match <- max(abs(zm)) < 4 && max(abs(zs)) < 4
  cat(sprintf("compare posteriors %s (|z| < 4 for every mean and sd)\n",
              if (match) "match" else "DIFFER"))
  if (!is.null(hres$warmup) && (hres$warmup != nwarm || hres$draws != ndraw))
    cat(sprintf("compare WARNING: hetui ran %d + %d, Stan %d + %d\n",
                hres$warmup, hres$draws, nwarm, ndraw))
  if (!is.null(hres$metric) && !is.null(st$metric) && hres$metric != st$metric)
    cat(sprintf("compare WARNING: hetui's metric %s, Stan's %s\n",
                hres$metric, st$metric))
  h_rate <- min(hres$ess_bulk) / hres$cpu
  s_rate <- min(ess) / cpu
  cat(sprintf("compare min_ess_bulk_per_cpu_s hetui %.4f stan %.4f ratio %.1fx\n",
              h_rate, s_rate, h_rate / s_rate))
  cat(sprintf("compare median_ess_bulk_per_cpu_s hetui %.4f stan %.4f ratio %.1fx\n",
              median(hres$ess_bulk) / hres$cpu, median(ess) / cpu,
              (median(hres$ess_bulk) / hres$cpu) / (median(ess) / cpu)))
  cat(sprintf("compare cpu hetui %.1f s stan %.1f s; wall hetui %.1f s (1 core) stan %.1f s (%d cores)\n",
              hres$cpu, cpu, hres$wall, wall, cores))
}

args <- commandArgs(trailingOnly = TRUE)
check_only <- "--check-only" %in% args
compare_only <- "--compare-only" %in% args
dense <- "--dense" %in% args
args <- args[!(args %in% c("--check-only", "--compare-only", "--dense"))]
opt_num <- function(flag, def) {
  k <- which(args == flag)
  if (length(k) == 0)
    return(def)
  v <- as.integer(args[k + 1])
  args <<- args[-c(k, k + 1)]
  v
}
nwarm <- opt_num("--warmup", 500L)
ndraw <- opt_num("--draws", 1000L)
cores <- opt_num("--cores", min(4L, parallel::detectCores()))
# hetui's target acceptance (het_shard_settings_default, bench_cmc -a);
# Stan's own default adapt_delta is 0.8.
adapt <- opt_num("--accept", 85L) / 100
seed <- opt_num("--seed", 42L)
if (length(args) < 2)
  stop("usage: Rscript peer_stan.R [--check-only | --compare-only] [--warmup W] [--draws D] [--cores N] MODEL.stan SHARD.json [HETUI.json]")
d <- fromJSON(args[2])
stan_out <- sub("[.]json$", "_stan.json", args[2])
if (compare_only) {
  if (length(args) < 3 || !file.exists(args[3]) || !file.exists(stan_out))
    stop("--compare-only needs HETUI.json and ", stan_out)
  compare(fromJSON(args[3]), fromJSON(stan_out))
  quit(status = 0)
}

cat(sprintf("rstan %s (Stan %s), R %s, %d cores\n",
            packageVersion("rstan"), stan_version(), getRversion(), cores))

# Debian's r-cran-bh ships the Boost headers in /usr/include only.
bl <- rstan_options("boost_lib")
if (!nzchar(bl) || !file.exists(bl))
  bl <- "/usr/include"
# The compiled model is cached in the current directory, keyed by the
# program's MD5 sum (compiling takes minutes).
cache <- sprintf("het_shard_stan_%s.rds", tools::md5sum(args[1])[[1]])
if (file.exists(cache)) {
  sm <- readRDS(cache)
  cat(sprintf("stan compile cached (%s)\n", cache))
} else {
  t0 <- proc.time()[["elapsed"]]
  sm <- stan_model(file = args[1], model_name = "het_shard",
                   auto_write = FALSE, boost_lib = bl)
  cat(sprintf("stan compile %.1f s\n", proc.time()[["elapsed"]] - t0))
  saveRDS(sm, cache)
}

data <- d[c("N", "NA", "n", "p", "q", "dt", "sigma", "invk", "tref", "t",
            "phi", "aa", "y", "c2_truth", "prior_loc", "prior_scale", "lo",
            "hi")]
# The shard's distinct frame pairs (cells) and each pair's cell: the
# model computes everything but the phase once per cell, as hetui does.
cell_key <- (d$ii - 1) * d$N + d$jj
cells <- unique(cell_key)
first <- match(cells, cell_key)
data$nc <- length(cells)
data$ci <- array(d$ii[first], length(cells))
data$cj <- array(d$jj[first], length(cells))
data$pc <- match(cell_key, cells)
na <- d[["NA"]]
pnames <- d$names

# The truth as a Stan init list (prefactors as ln A(t_ref)).
init_of <- function(x) {
  lt <- log(d$tref)
  list(v_D0_ref = log(x[1]) + x[2] * lt, alpha_ref = x[2],
       D_offset_ref = x[3], v_D0_sample = log(x[4]) + x[5] * lt,
       alpha_sample = x[5], D_offset_sample = x[6],
       v_v0 = log(x[7]) + x[8] * lt, beta_vel = x[8], v_offset = x[9],
       f0 = x[10], f1 = x[11], f2 = x[12], f3 = x[13], phi0 = x[14],
       contrast_a = array(x[15:(14 + na)], na),
       offset_a = array(x[(15 + na):(14 + 2 * na)], na))
}
init_truth <- init_of(d$truth)

# Check: c2 at the truth, log density and gradient at two points.
chk <- sampling(sm, data = c(data, check = 1L), algorithm = "Fixed_param",
                iter = 1, warmup = 0, chains = 1, init = list(init_truth),
                refresh = 0, seed = 1)
c2diff <- extract(chk, "c2_maxdiff")$c2_maxdiff[1]
u_stan <- unconstrain_pars(chk, init_truth)
lp_ok <- TRUE
cat(sprintf("check c2 max_abs_diff %.3g (model c2 at the truth, %d pairs)\n",
            c2diff, d$n))
cat(sprintf("check unconstrained truth max_abs_diff %.3g\n",
            max(abs(u_stan - d$u_truth))))
for (pt in c("truth", "moved")) {
  u <- d[[paste0("u_", pt)]]
  g <- grad_log_prob(chk, u, adjust_transform = TRUE)
  lp <- attr(g, "log_prob")
  gh <- d[[paste0("grad_", pt)]]
  lph <- d[[paste0("lp_", pt)]]
  rel <- max(abs(g - gh) / pmax(abs(gh), 1))
  cat(sprintf("check %s log_density stan %.10g hetui %.10g diff %.3g; gradient max rel diff %.3g\n",
              pt, lp, lph, lp - lph, rel))
  if (abs(lp - lph) > 1e-6 * max(1, abs(lph)) || rel > 1e-6)
    lp_ok <- FALSE
}
if (!(c2diff < 1e-10) || !lp_ok) {
  cat("check FAILED: Stan's model is not hetui's; not timing\n")
  quit(status = 1)
}

if (check_only)
  quit(status = 0)

# One forked process per chain, `cores` at a time: the CPU time of the
# chains is then the children's user + system time, exact whatever else
# runs on the machine.  With --cores 1 mclapply runs the chains in this
# process, so this process's own time is added (it only waits otherwise).
pt0 <- proc.time()
fits <- parallel::mclapply(1:4, function(c)
  sampling(sm, data = c(data, check = 0L), chains = 1, chain_id = c,
           iter = nwarm + ndraw, warmup = nwarm, seed = seed,
           control = list(metric = if (dense) "dense_e" else "diag_e",
                          adapt_delta = adapt),
           init = list(init_truth), refresh = max(1, (nwarm + ndraw) %/% 10)),
  mc.cores = cores, mc.preschedule = FALSE)
pt1 <- proc.time()
fit <- sflist2stanfit(fits)
wall <- pt1[["elapsed"]] - pt0[["elapsed"]]
cpu_fields <- c("user.self", "sys.self", "user.child", "sys.child")
cpu <- sum(pt1[cpu_fields]) - sum(pt0[cpu_fields])
el <- get_elapsed_time(fit)
sp <- get_sampler_params(fit, inc_warmup = FALSE)
div <- sum(sapply(sp, function(s) sum(s[, "divergent__"])))
nleap <- mean(sapply(sp, function(s) mean(s[, "n_leapfrog__"])))
depth <- mean(sapply(sp, function(s) mean(s[, "treedepth__"])))
stepsz <- sapply(sp, function(s) s[1, "stepsize__"])
spw <- get_sampler_params(fit, inc_warmup = TRUE)
ngrad <- sum(sapply(spw, function(s) sum(s[, "n_leapfrog__"])))

# Physical parameters in hetui's order.
stan_names <- c("D0_ref", "alpha_ref", "D_offset_ref", "D0_sample",
                "alpha_sample", "D_offset_sample", "v0", "beta_vel",
                "v_offset", "f0", "f1", "f2", "f3", "phi0",
                sprintf("contrast_a[%d]", 1:na), sprintf("offset_a[%d]", 1:na))
arr <- as.array(fit)
ess <- rhat <- mn <- sdv <- numeric(length(stan_names))
for (k in seq_along(stan_names)) {
  m <- arr[, , stan_names[k]]
  ess[k] <- ess_bulk(m)
  rhat[k] <- Rhat(m)
  mn[k] <- mean(m)
  sdv[k] <- sd(as.vector(m))
}
cat(sprintf("stan sampling chains 4 warmup %d draws %d cores %d metric %s adapt_delta %.2f cells %d\n",
            nwarm, ndraw, cores, if (dense) "dense_e" else "diag_e",
            adapt, data$nc))
cat(sprintf("stan sampling wall %.1f s\n", wall))
cat(sprintf("stan sampling cpu %.1f s (this process and its children); per-chain elapsed sum: warmup %.1f, sampling %.1f\n",
            cpu, sum(el[, 1]), sum(el[, 2])))
cat(sprintf("stan step_size %s\n", paste(sprintf("%.4g", stepsz), collapse = " ")))
cat(sprintf("stan leapfrog_per_draw %.1f treedepth %.2f gradients %d\n",
            nleap, depth, ngrad))
cat(sprintf("stan gradient per_eval %.1f us (cpu / gradients)\n", 1e6 * cpu / ngrad))
cat(sprintf("stan ess_bulk min %.0f median %.0f\n", min(ess), median(ess)))
cat(sprintf("stan ess_bulk_per_cpu_s min %.4f\n", min(ess) / cpu))
cat(sprintf("stan rhat max %.4f\n", max(rhat)))
cat(sprintf("stan divergences %d\n", div))
# Stan's figures for later comparisons (next to the shard file).
res <- list(warmup = nwarm, draws = ndraw, cores = cores, wall = wall,
            metric = if (dense) "dense" else "diag",
            cpu = cpu, gradients = ngrad, divergences = div,
            names = pnames, mean = mn, sd = sdv, ess_bulk = ess, rhat = rhat)
writeLines(toJSON(res, digits = NA, auto_unbox = TRUE), stan_out)
cat(sprintf("stan results written to %s\n", stan_out))
if (length(args) >= 3 && file.exists(args[3]))
  compare(fromJSON(args[3]), res)

