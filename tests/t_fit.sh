#!/bin/sh
# t_fit.sh: `hetui fit` end to end on a file written by `hetui simulate`
# from tests/configs/fit_truth.yaml (static_ref, 2 angles, 60 frames,
# noise 0.002) and fitted from tests/configs/fit_start.yaml (D0_ref and
# alpha_ref started 40 % and 67 % off).  Checks: convergence and exit 0;
# progress lines on stderr; the summary lists every free parameter; the
# recovered values are near the truth; --json parses and has the
# documented keys; the three output files exist with the reference's
# JSON keys; --threads 1 and 2 give identical numbers; -o, --multistart,
# --per-angle; SIGINT writes a partial result and exits 130 (SIGTERM
# 143, with the brief report of a cancelled fit: every uncertainty null,
# "uncertainties_computed": false, a warning); usage errors exit 2, a
# missing data file exits 1, a run stopped by max_nfev exits 3.
#
# Margins (issue 19, measured 2026-11-26): the data are fixed (simulate
# --seed 7, the same bytes on every run: t_simulate.sh) and the fit is
# deterministic, so on another CPU only rounding moves the result, by
# about the solver's termination tolerance.  That scatter, measured by
# starting the fit from 12 other points (D0_ref 2000-8000, alpha_ref
# 0-0.5): D0_ref 5033.3191 within 3e-4, alpha_ref 0.29769964 within
# 3e-8, scaling within 1e-9, chi2_red 0.99398381 within 1e-9.  The seed-7
# values against the asserted bounds: D0_ref +33 (3 % is 150, 4
# sigma is 105), alpha_ref -0.0023 (0.01; 4 sigma 0.014), contrast
# +0.0005 and -0.0001 (0.003), offset 1e-5 and 2e-5 (0.002), chi2_red
# 0.994 (0.9-1.1): each bound is more than 1e5 of those sd away.  For
# reference, redrawing the data (--seed 1-40, /tmp sweep) scatters the
# fit as the noise does: D0_ref sd 23 (largest deviation 57, 4 sd below
# 150), alpha_ref sd 0.0026 (largest 0.0066, 1.3 sd below 0.01),
# scaling sd <= 0.00025 (>= 10 sd), chi2_red sd 0.11 (the far-lag noise
# estimate's own scatter; 10 % is a statement about this data set); the
# recovered z of D0_ref and alpha_ref stayed within 2.2.  --threads 1
# and 2 are compared bit for bit (same machine): exact.
. "$top_srcdir/tests/tap.sh"
plan_lazy

dir="$TAP_TMP"
cp "$top_srcdir/tests/configs/fit_truth.yaml" \
    "$top_srcdir/tests/configs/fit_start.yaml" "$dir/"
cd "$dir" || exit 1

py=
if [ -n "$PYTHON3" ] && "$PYTHON3" -c 'import json' 2>/dev/null; then
	py=$PYTHON3
fi
h5py=
if [ -n "$py" ] && "$py" -c 'import h5py, numpy' 2>/dev/null; then
	h5py=$py
fi

run_capture "$HETUI" simulate -q -c fit_truth.yaml -o fit_sim.h5 \
    --noise 0.002 --seed 7
is "$RUN_RC" 0 "simulate the test data"

# --- a converging fit --------------------------------------------------------
run_capture "$HETUI" fit -c fit_start.yaml
is "$RUN_RC" 0 "fit converges: exit 0"
like "$RUN_OUT" "^hetui fit: static_ref, 2 angles, q 0.01 1/A, frames 1..60, 3540 pairs, individual scaling" \
    "summary header: mode, angles, q, window, pairs, scaling"
like "$RUN_OUT" "converged \\((gtol|ftol|xtol|ftol_xtol)\\)" "summary says converged"
for p in 'D0_ref' 'alpha_ref' 'contrast\[0\]' 'contrast\[1\]' 'offset\[0\]' 'offset\[1\]'; do
	like "$RUN_OUT" "^$p +[-0-9.e+]+ ± " "summary lists free parameter $p with ± uncertainty"
done
like "$RUN_OUT" "^D_offset_ref +0 .*fixed" "fixed parameters are flagged"
like "$RUN_ERR" "^reading bin 1/2$" "stderr: reading bin 1/2"
like "$RUN_ERR" "^reading bin 2/2$" "stderr: reading bin 2/2"
like "$RUN_ERR" "^iter 0  cost [0-9.]+e[-+][0-9]+  chi2_red [0-9.e+-]+  radius [0-9.]+e[-+][0-9]+  step [0-9.]+e[-+][0-9]+" \
    "stderr: one line per iteration (not a tty)"
# Without -o: a new folder for the run, OUTPUT_DIR/<data stem>/fit-<UTC time>.
fo=$(printf '%s\n' "$RUN_OUT" | sed -n 's#^results written to \(.*\)/ (.*#\1#p')
like "$fo" '^fit_out/fit_sim/fit-[0-9]{8}-[0-9]{6}$' "the run's own folder: output_dir/<stem>/fit-<UTC time>"
ok "$([ -f "$fo/hetui_results.h5" ] && [ -f "$fo/nlsq_parameters.json" ] \
    && [ -f "$fo/nlsq_metadata.json" ]; echo $?)" \
    "hetui_results.h5, nlsq_parameters.json, nlsq_metadata.json in the run folder"
unlike "$(ls -a "$fo")" "tmp" "no temporary file left"

if [ -z "$py" ]; then
	skip 8 "python3 not found"
else
	run_capture "$HETUI" fit -c fit_start.yaml --json -o json1 --threads 1
	is "$RUN_RC" 0 "--json --threads 1: exit 0"
	printf '%s\n' "$RUN_OUT" >json1.txt
	out=$("$py" - json1.txt <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
keys = ["status", "fit", "analysis_mode", "per_angle_mode", "n_angles",
        "n_data", "wall_time", "fit_wall_time", "output_dir", "converged", "parameters",
        "uncertainties", "fixed", "cost", "chi2_red", "noise_sigma", "dof",
        "iterations", "evaluations", "passes", "window_frames",
        "window_iterations", "convergence_reason", "message",
        "starts", "warnings"]
missing = [k for k in keys if k not in j]
print("missing:", missing)
p, u = j["parameters"], j["uncertainties"]
print("free:", sorted(p))
ok = (abs(p["D0_ref"] - 5000) < 0.03 * 5000 and abs(p["alpha_ref"] - 0.3) < 0.01
      and abs(p["contrast[0]"] - 0.30) < 0.003 and abs(p["contrast[1]"] - 0.25) < 0.003
      and abs(p["offset[0]"] - 1.00) < 0.002 and abs(p["offset[1]"] - 1.02) < 0.002
      and abs(p["D0_ref"] - 5000) < 4 * u["D0_ref"]
      and abs(p["alpha_ref"] - 0.3) < 4 * u["alpha_ref"])
print("near truth:", ok, p["D0_ref"], p["alpha_ref"])
print("chi2:", 0.9 < j["chi2_red"] < 1.1, j["chi2_red"])
print("status:", j["status"], j["converged"], j["iterations"] > 0, j["evaluations"] >= j["iterations"])
print("passes:", j["iterations"] <= j["passes"] <= j["evaluations"] + j["iterations"] + 1,
      j["window_frames"] == 0 and j["window_iterations"] == 0)
print("times:", 0 < j["fit_wall_time"] <= j["wall_time"])
PY
)
	like "$out" "missing: \\[\\]" "--json has the documented keys"
	like "$out" "times: True" "--json: the command's wall_time holds the solver's fit_wall_time"
	like "$out" "free: \\['D0_ref', 'alpha_ref', 'contrast\\[0\\]', 'contrast\\[1\\]', 'offset\\[0\\]', 'offset\\[1\\]'\\]" \
	    "--json lists the 6 free parameters"
	like "$out" "near truth: True" "D0_ref within 3 % and 4 sigma of 5000, alpha_ref within 0.01 of 0.3, scaling within 0.003"
	like "$out" "chi2: True" "reduced chi-square against the far-lag noise is 1 within 10 %"
	like "$out" "status: converged True True True" "status, converged, counts"
	like "$out" "passes: True True" \
	    "data passes between iterations and evaluations + iterations; no pre-fit below 600 frames"
	diag "$out"

	run_capture "$HETUI" fit -c fit_start.yaml --json -o json2 --threads 2
	printf '%s\n' "$RUN_OUT" >json2.txt
	out=$("$py" - json1.txt json2.txt <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ["parameters", "uncertainties", "cost", "chi2_red", "noise_sigma",
        "iterations", "evaluations", "convergence_reason"]
print("same" if all(a[k] == b[k] for k in keys) else
      "differ: " + str([k for k in keys if a[k] != b[k]]))
PY
)
	is "$out" "same" "--threads 1 and --threads 2 give identical numbers"

	out=$("$py" - json1/nlsq_parameters.json json1/nlsq_metadata.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))
print(list(p), list(m))
print(len(p["parameters"]) == len(p["parameter_names"]) == 6, p["parameter_names"][0])
PY
)
	like "$out" "\\['parameters', 'uncertainties', 'parameter_names', 'timestamp'\\] \\['success', 'message', 'n_iterations', 'n_function_evals', 'final_cost', 'reduced_chi_squared', 'convergence_reason', 'wall_time_seconds', 'metadata'\\]" \
	    "nlsq_parameters.json and nlsq_metadata.json have the reference's keys in order"
fi

if [ -z "$h5py" ]; then
	skip 1 "h5py not found"
else
	out=$("$h5py" - "$fo/hetui_results.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
print(f.attrs["status"], f["fit/c2_fitted/angle_001"].shape,
      f["fit/residuals/angle_000"].shape, f["fit/covariance"].shape,
      len(f["fit/parameters/name"]), f["history/iter"].shape[0] > 1,
      "config" in f and "yaml" in f["config"])
PY
)
	is "$out" "converged (1830,) (1770,) (6, 6) 18 True True" \
	    "hetui_results.h5: status, packed upper-triangle fitted (with diagonal) and residual (without) matrices, covariance, 18-row table (14 physics + 4 scaling), history, config"
fi

# --- options --------------------------------------------------------------------
run_capture "$HETUI" fit -c fit_start.yaml -o other --multistart 3 --seed 5
is "$RUN_RC" 0 "--multistart 3 --seed 5: exit 0"
like "$RUN_ERR" "start 3/3  iter" "progress names the start"
ok "$([ -f other/nlsq_metadata.json ]; echo $?)" "-o DIR writes there"
if [ -n "$h5py" ]; then
	out=$("$h5py" -c 'import h5py,sys; f=h5py.File(sys.argv[1],"r"); print(f["fit/starts/x0"].shape, f.attrs["optimizer"])' \
	    other/hetui_results.h5)
	is "$out" "(3, 6) multistart" "all three starts are in the results file"
else
	skip 1 "h5py not found"
fi

run_capture "$HETUI" fit -c fit_start.yaml -o per --per-angle
is "$RUN_RC" 0 "--per-angle: exit 0"
is "$(cd per && ls | tr '\n' ' ')" \
    "hetui_results.h5 nlsq_phi10_metadata.json nlsq_phi10_parameters.json nlsq_phi80_metadata.json nlsq_phi80_parameters.json " \
    "--per-angle writes the reference's per-phi files"
like "$RUN_OUT" "angle 1 \\(phi 80\\):" "summary per angle"

# --- not converged: max_nfev 2 ---------------------------------------------------
sed 's/    loss: linear/    loss: linear\n    max_nfev: 2/' fit_start.yaml >fit_nfev.yaml
run_capture "$HETUI" fit -c fit_nfev.yaml -o nfev
is "$RUN_RC" 3 "max_nfev 2: exit 3 (not converged)"
like "$RUN_OUT" "not converged \\(max_nfev\\)" "summary says not converged (max_nfev)"
ok "$([ -f nfev/hetui_results.h5 ]; echo $?)" "the result is written anyway"
like "$(cat nfev/nlsq_metadata.json)" '"success": false' "metadata: success false"

# --- cancellation ----------------------------------------------------------------------
cat >fit_big.yaml <<'YAML'
analysis_mode: two_component
analyzer_parameters:
  dt: 0.1
  end_frame: 400
  scattering: {wavevector_q: 0.01, phi_angles: [0.0, 30.0, 60.0, 90.0]}
parameters:
  sample: {D0_sample: 3000.0, alpha_sample: -0.2}
  velocity: {v0: 50.0, v_offset: 5.0}
  fraction: {f0: 0.3, f1: 0.05, f2: 15.0, f3: 0.2}
optimization:
  nlsq: {max_nfev: 100000, max_iterations: 100000}
YAML
"$HETUI" simulate -q -c fit_big.yaml -o fit_big.h5 --noise 0.01
sed 's/D0_sample: 3000.0/D0_sample: 20000.0/' fit_big.yaml >fit_big_start.yaml
# signal_fit SIG [SIG...]: start the long fit, send the signals (10 ms
# apart) once iteration 1 is reported, wait; sets rc.
signal_fit() {
	# no earlier run's files: the wait below must read this run's
	rm -rf big big.out big.err
	# the default SIGHUP action even if this test inherited nohup's
	perl -e '$SIG{HUP} = "DEFAULT"; exec @ARGV or die "exec: $!\n"' -- \
	    "$HETUI" fit -c fit_big_start.yaml fit_big.h5 -o big --threads 1 \
	    >big.out 2>big.err &
	pid=$!
	i=0
	while [ $i -lt 600 ] && ! grep -q '^iter 1 ' big.err 2>/dev/null; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	for sig; do
		kill -$sig $pid 2>/dev/null
		sleep 0.01
	done
	wait $pid
	rc=$?
}
signal_fit INT
if grep -q 'cancelled; the partial result' big.err; then
	is "$rc" 130 "SIGINT during the fit: exit 130"
	like "$(cat big.out)" "cancelled \\(cancelled\\)" "summary of the partial result"
	like "$(cat big/nlsq_metadata.json)" '"status": "cancelled"' \
	    "the partial result is written, status cancelled"
else
	skip 3 "the fit ended (rc $rc) before SIGINT arrived"
fi
# SIGTERM (a batch system's time limit) does the same, exit 143.
signal_fit TERM
if grep -q 'cancelled; the partial result' big.err; then
	is "$rc" 143 "SIGTERM during the fit: exit 143"
	like "$(cat big/nlsq_metadata.json)" '"status": "cancelled"' \
	    "SIGTERM: the partial result is written, status cancelled"
	# The brief report of a cancelled fit (issue 19): no eigen-analysis,
	# so no uncertainty anywhere, and the files say why.
	like "$(cat big/nlsq_metadata.json)" \
	    '"uncertainties_computed": false' \
	    "SIGTERM: the metadata says the uncertainties were not computed"
	like "$(tr -d ' \n' <big/nlsq_parameters.json)" \
	    '"uncertainties":\[null(,null)*\]' \
	    "SIGTERM: every uncertainty is null"
	unlike "$(cat big.out)" "±" "SIGTERM: no uncertainty in the table"
	like "$(cat big.err)" "report was cut short: the uncertainties" \
	    "SIGTERM: a warning says the report was cut short"
else
	skip 6 "the fit ended (rc $rc) before SIGTERM arrived"
fi
# SIGHUP (a dropped SSH session), sent twice as a hang-up often is.
signal_fit HUP HUP
if grep -q 'cancelled; the partial result' big.err; then
	is "$rc" 129 "SIGHUP twice during the fit: exit 129"
	like "$(cat big/nlsq_metadata.json)" '"status": "cancelled"' \
	    "SIGHUP: the partial result is written, status cancelled"
else
	skip 2 "the fit ended (rc $rc) before SIGHUP arrived"
fi

# --- errors ------------------------------------------------------------------------
run_capture "$HETUI" fit
is "$RUN_RC" 2 "no config: exit 2"
like "$RUN_ERR" "a config is required \\(-c CONFIG\\)" "... says so"
like "$RUN_ERR" "usage: hetui fit -c CONFIG" "... with the usage line"
run_capture "$HETUI" fit -c fit_start.yaml --bogus
is "$RUN_RC" 2 "unknown option: exit 2"
run_capture "$HETUI" fit -c fit_start.yaml --threads 0
is "$RUN_RC" 2 "--threads 0: exit 2"
like "$RUN_ERR" "--threads" "... names the option"
run_capture "$HETUI" fit -c fit_start.yaml --multistart many
is "$RUN_RC" 2 "--multistart many: exit 2"
run_capture "$HETUI" fit -c fit_start.yaml a.h5 b.h5
is "$RUN_RC" 2 "two data files: exit 2"
like "$RUN_ERR" "unexpected argument 'b.h5'" "... names the extra one"
run_capture "$HETUI" fit -c fit_start.yaml "$dir/missing.h5"
is "$RUN_RC" 1 "a missing data file: exit 1"
like "$RUN_ERR" "hetui fit: error: .*missing.h5" "... the message names the file"
diag "$RUN_ERR"
run_capture "$HETUI" fit -c nonexistent.yaml
is "$RUN_RC" 1 "a missing config: exit 1"
run_capture "$HETUI" help fit
like "$RUN_OUT" "Exit status: 0 converged, 3 not converged" "hetui help fit documents the exit statuses"

done_testing
