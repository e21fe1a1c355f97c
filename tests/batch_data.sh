# batch_data.sh: the simulated data of the batch tests (t_fit_rings.sh,
# t_fit_series.sh, t_fit_wire.sh, t_ui_batch.sh), written into the
# current folder by the real hetui.  Source it after tap.sh.
#
#   batch_configs  copies tests/configs/rings_truth.yaml (homodyne
#                  static, D0 12000, 2 angles, 50 frames) and
#                  rings_start.yaml (its fit, D0 started at 6000) here
#   batch_rings    rings.h5: three rings (q 0.005, 0.0075, 0.011) of
#                  rings_truth.yaml, noise 0.003, seed 11
#   batch_series   data/m1.h5 .. m5.h5: one ring (q 0.0075) each, D0
#                  11500 + 1500 (i - 1) for the i-th measured, seeds 21-25,
#                  named in reverse of their modification times
#                  (2024-03-05 10:0i:00)
#   batch_slow     big.h5, two rings (q 0.01, 0.012) of
#                  tests/configs/slow_fit.yaml, noise 0.01, and
#                  big_start.yaml, its fit from D0_sample 20000
# Each returns the status of its last command.

batch_configs() {
	cp "$top_srcdir/tests/configs/rings_truth.yaml" \
	    "$top_srcdir/tests/configs/rings_start.yaml" .
}

batch_rings() {
	"$HETUI" simulate -q -c rings_truth.yaml -o rings.h5 \
	    --q 0.005,0.0075,0.011 --noise 0.003 --seed 11
}

batch_series() {
	mkdir -p data
	for _bi in 1 2 3 4 5; do
		sed "s/values: \[12000.0/values: [$((10000 + 1500 * _bi)).0/" \
		    rings_truth.yaml >truth$_bi.yaml
		# names in reverse of the measurement order
		"$HETUI" simulate -q -c truth$_bi.yaml \
		    -o data/m$((6 - _bi)).h5 --q 0.0075 --noise 0.003 \
		    --seed $((20 + _bi)) || return 1
		touch -d "2024-03-05 10:0$_bi:00" data/m$((6 - _bi)).h5
	done
}

batch_slow() {
	cp "$top_srcdir/tests/configs/slow_fit.yaml" big.yaml &&
	"$HETUI" simulate -q -c big.yaml -o big.h5 --noise 0.01 \
	    --q 0.01,0.012 &&
	sed 's/D0_sample: 3000.0/D0_sample: 20000.0/' big.yaml >big_start.yaml
}
