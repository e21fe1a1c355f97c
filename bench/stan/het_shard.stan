// het_shard.stan: the log posterior of one CMC shard of hetui's
// two_component heterodyne model with individual per-angle scaling
// (bench/bench_cmc.c writes the shard; bench/peer_stan.R runs this).
//
// Written from shared/docs/heterodyne-spec.md §1-2, not from hetui's C:
// time grid t (data), cumulative trapezoid integrals of
//   J_r = max(D0_ref t^alpha_ref + D_offset_ref, 0), J_s alike,
//   v   = v0 t^beta + v_offset,
// fractions x_s = clip(f0 exp(clip(f1 (t - f2), -100, 100)) + f3, 0, 1),
// x_r = 1 - x_s, n = x_s^2 + x_r^2, half-transport factors
// h = exp(-q^2/2 sqrt(dS^2 + 1e-12)), phase q cos((phi + phi0) deg) dSv,
//   c2 = offset_a + contrast_a (u^2 + w^2 + 2 u w cos Phi) / (n_i n_j),
//   u = x_r,i x_r,j h_r, w = x_s,i x_s,j h_s.
// Two floors of the reference are left out because they cannot bind
// here: the clip of log h at -700 (exp(-700) ~ 1e-304 either way) and
// the floor 1e-10 of n_i n_j (n >= 1/2 always).  t > 0 on this grid, so
// P(t, a) = t^a.
//
// Posterior, as hetui's het_posterior: Normal likelihood with known
// sigma over the shard's upper-triangle pairs (constant terms dropped),
// truncated-normal priors (normaliser dropped) raised to 1/K (invk),
// the same unconstrained coordinates: logit for every bounded parameter
// (Stan's own lower/upper transform is that logit), and the power-law
// prefactors D0_ref, D0_sample, v0 sampled as v = ln A + e ln t_ref with
// the Jacobian ln A; a prefactor outside its bounds is rejected.  So the
// log density equals hetui's exactly (peer_stan.R checks value and
// gradient at two points before timing).
//
// Cells: the pairs come as nc distinct frame pairs (ci, cj) and, per
// pair, its cell pc and angle aa; everything but the phase is computed
// once per cell, as hetui's kernel does for a shard of whole cells (for
// pairs drawn one by one nc is about n and nothing is shared).
functions {
  vector het_mu(vector t, real dt, real q, vector phi, int[] ci, int[] cj,
      int[] pc, int[] aa, real D0r, real ar, real Dor, real D0s, real as, real Dos,
      real v0, real be, real vo, real f0, real f1, real f2, real f3,
      real phi0, vector contrast_a, vector offset_a) {
    int N = rows(t);
    int n = size(pc);
    int nc = size(ci);
    int NA = rows(phi);
    vector[N] Jr;
    vector[N] Js;
    vector[N] vv;
    vector[N] xs;
    vector[N] xr;
    vector[N] nk;
    vector[N] Sr;
    vector[N] Ss;
    vector[N] Sv;
    vector[NA] qc;
    vector[nc] hr;
    vector[nc] hs;
    vector[nc] u;
    vector[nc] w;
    vector[nc] dv;
    vector[nc] nn;
    real hq = 0.5 * q * q;
    for (k in 1:N) {
      Jr[k] = fmax(D0r * pow(t[k], ar) + Dor, 0);
      Js[k] = fmax(D0s * pow(t[k], as) + Dos, 0);
      vv[k] = v0 * pow(t[k], be) + vo;
      xs[k] = fmin(fmax(f0 * exp(fmin(fmax(f1 * (t[k] - f2), -100), 100))
          + f3, 0), 1);
    }
    xr = 1 - xs;
    nk = square(xs) + square(xr);
    Sr[1] = 0;
    Ss[1] = 0;
    Sv[1] = 0;
    for (k in 2:N) {
      Sr[k] = Sr[k - 1] + dt * (Jr[k - 1] + Jr[k]) / 2;
      Ss[k] = Ss[k - 1] + dt * (Js[k - 1] + Js[k]) / 2;
      Sv[k] = Sv[k - 1] + dt * (vv[k - 1] + vv[k]) / 2;
    }
    for (a in 1:NA)
      qc[a] = q * cos((phi[a] + phi0) * pi() / 180);
    hr = exp(-hq * sqrt(square(Sr[cj] - Sr[ci]) + 1e-12));
    hs = exp(-hq * sqrt(square(Ss[cj] - Ss[ci]) + 1e-12));
    u = xr[ci] .* xr[cj] .* hr;
    w = xs[ci] .* xs[cj] .* hs;
    dv = Sv[cj] - Sv[ci];
    nn = nk[ci] .* nk[cj];
    return offset_a[aa] + contrast_a[aa] .* (square(u[pc]) + square(w[pc])
        + 2 * u[pc] .* w[pc] .* cos(qc[aa] .* dv[pc])) ./ nn[pc];
  }
}
data {
  int<lower=2> N;
  int<lower=1> NA;
  int<lower=1> n;
  int<lower=1> p;
  real<lower=0> q;
  real<lower=0> dt;
  real<lower=0> sigma;
  real<lower=0> invk;
  real<lower=0> tref;
  vector[N] t;
  vector[NA] phi;
  int<lower=1> nc;
  int<lower=1, upper=N> ci[nc];
  int<lower=1, upper=N> cj[nc];
  int<lower=1, upper=nc> pc[n];
  int<lower=1, upper=NA> aa[n];
  vector[n] y;
  vector[n] c2_truth;
  vector[p] prior_loc;
  vector[p] prior_scale;
  vector[p] lo;
  vector[p] hi;
  int<lower=0, upper=1> check;
}
transformed data {
  real ltref = log(tref);
}
parameters {
  real v_D0_ref;
  real<lower=lo[2], upper=hi[2]> alpha_ref;
  real<lower=lo[3], upper=hi[3]> D_offset_ref;
  real v_D0_sample;
  real<lower=lo[5], upper=hi[5]> alpha_sample;
  real<lower=lo[6], upper=hi[6]> D_offset_sample;
  real v_v0;
  real<lower=lo[8], upper=hi[8]> beta_vel;
  real<lower=lo[9], upper=hi[9]> v_offset;
  real<lower=lo[10], upper=hi[10]> f0;
  real<lower=lo[11], upper=hi[11]> f1;
  real<lower=lo[12], upper=hi[12]> f2;
  real<lower=lo[13], upper=hi[13]> f3;
  real<lower=lo[14], upper=hi[14]> phi0;
  vector<lower=lo[15], upper=hi[15]>[NA] contrast_a;
  vector<lower=lo[15 + NA], upper=hi[15 + NA]>[NA] offset_a;
}
model {
  real lD0r = v_D0_ref - alpha_ref * ltref;
  real lD0s = v_D0_sample - alpha_sample * ltref;
  real lv0 = v_v0 - beta_vel * ltref;
  real D0r = exp(lD0r);
  real D0s = exp(lD0s);
  real v0 = exp(lv0);
  vector[p] x;
  if (D0r < lo[1] || D0r > hi[1] || D0s < lo[4] || D0s > hi[4]
      || v0 < lo[7] || v0 > hi[7])
    reject("a power-law prefactor left its bounds");
  x[1] = D0r;
  x[2] = alpha_ref;
  x[3] = D_offset_ref;
  x[4] = D0s;
  x[5] = alpha_sample;
  x[6] = D_offset_sample;
  x[7] = v0;
  x[8] = beta_vel;
  x[9] = v_offset;
  x[10] = f0;
  x[11] = f1;
  x[12] = f2;
  x[13] = f3;
  x[14] = phi0;
  x[15:(14 + NA)] = contrast_a;
  x[(15 + NA):p] = offset_a;
  // Jacobians of the prefactor reparameterisation
  target += lD0r + lD0s + lv0;
  target += invk * normal_lpdf(x | prior_loc, prior_scale);
  target += -0.5 / square(sigma) * dot_self(y - het_mu(t, dt, q, phi, ci,
      cj, pc, aa, D0r, alpha_ref, D_offset_ref, D0s, alpha_sample,
      D_offset_sample, v0, beta_vel, v_offset, f0, f1, f2, f3, phi0, contrast_a,
      offset_a));
}
generated quantities {
  real D0_ref = exp(v_D0_ref - alpha_ref * ltref);
  real D0_sample = exp(v_D0_sample - alpha_sample * ltref);
  real v0 = exp(v_v0 - beta_vel * ltref);
  real c2_maxdiff = 0;
  if (check) {
    c2_maxdiff = max(fabs(het_mu(t, dt, q, phi, ci, cj, pc, aa, D0_ref,
        alpha_ref, D_offset_ref, D0_sample, alpha_sample, D_offset_sample,
        v0, beta_vel, v_offset, f0, f1, f2, f3, phi0, contrast_a, offset_a)
        - c2_truth));
  }
}
