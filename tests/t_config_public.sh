#!/bin/sh
# t_config_public.sh: the public templates of the reference packages load.
#
# hetui must read imewei/heterodyne's heterodyne_master_template.yaml and
# imewei/homodyne's homodyne_static.yaml and homodyne_laminar_flow.yaml
# with only their data path changed.  Their licences do not let us ship
# copies, so the test looks for them in $HETUI_REFERENCE_TEMPLATES or
# $HETUI_SHARED/../reference-templates and is skipped when they are not
# there.  Each must check valid (exit 0) in the right mode, and no warning
# may name a key hetui honours: every warning is a key hetui leaves alone
# on purpose.  The warnings are printed as diagnostics.
. "$top_srcdir/tests/tap.sh"

dir=${HETUI_REFERENCE_TEMPLATES:-}
if [ -z "$dir" ] && [ -n "${HETUI_SHARED:-}" ]; then
	dir=$HETUI_SHARED/../reference-templates
fi
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	skip_all "no reference templates (set HETUI_REFERENCE_TEMPLATES to a directory holding heterodyne_master_template.yaml, homodyne_static.yaml, homodyne_laminar_flow.yaml)"
fi
plan_lazy

# Keys hetui reads; a warning naming one of them would mean a lost setting.
honoured='(: |^)(analysis_mode|experimental_data\.(file_path|data_folder_path|data_file_name|file_format)|analyzer_parameters\.(dt|start_frame|end_frame|scattering|geometry)|temporal\.(dt|t_start|time_length)|scattering\.(wavevector_q|phi_angles)|phi_filtering\.(enabled|target_ranges|tolerance|fallback_to_all_angles|algorithm)|parameters\.[a-z]+\.[A-Za-z0-9_]+\.(value|min|max|vary|prior|prior_params)|initial_parameters\.(parameter_names|values|active_parameters|fixed_parameters|per_angle_scaling)|parameter_space\.bounds\[[0-9]+\]\.(name|min|max|type|prior_mu|prior_sigma)|optimization\.nlsq\.(method|loss|f_scale|ftol|tolerance|xtol|gtol|x_scale|x_scale_map|max_nfev|max_iterations|multistart|multistart_n|seed|per_angle_mode|fourier_order|fourier_auto_threshold|multi_start\.(enable|n_starts|seed)|anti_degeneracy\.(per_angle_mode|fourier_order|constant_scaling_threshold))|optimization\.cmc\.(sigma_method|worker_command|per_angle_mode|per_angle\.per_angle_mode|sharding\.(sharding_strategy|strategy|num_shards|max_points_per_shard|min_points_per_shard)|per_shard_mcmc\.(num_warmup|num_samples|num_chains|target_accept_prob|target_accept|max_tree_depth|dense_mass|seed)|per_shard_timeout|heartbeat_timeout|timeout\.|combination\.(combination_method|method|min_success_rate)|validation\.(max_r_hat|r_hat_threshold|max_per_shard_rhat|min_ess|min_per_shard_ess|min_bfmi|max_divergence_rate|min_success_rate|nlsq_prior_width_factor)|nlsq\.(nlsq_prior_width_factor|prior_width_factor)|reparameterization\.use_reparam)|output\.(output_dir|directory)):'

# The heterodyne modes also honour the per-parameter shard floor; the
# homodyne ones leave it alone (its warning there is deliberate).
honoured_het="$honoured|(: |^)optimization\.cmc\.(sharding\.)?min_points_per_param:"

check_template() {	# file mode honoured-regex
	f=$dir/$1
	if [ ! -f "$f" ]; then
		skip 5 "$1 not in $dir"
		return
	fi
	run_capture "$HETUI" config --check "$f" -v
	is "$RUN_RC" 0 "$1 loads (exit 0)"
	like "$RUN_OUT" "valid .* configuration; analysis mode $2 " \
	    "$1 is read as $2"
	n=$(printf '%s\n' "$RUN_ERR" | grep -c 'warning:')
	diag "$1: $n warnings (keys hetui leaves alone):"
	diag "$(printf '%s\n' "$RUN_ERR" | sed "s|^hetui config: warning: $dir/||")"
	unlike "$RUN_ERR" 'error:' "$1: no error"
	# Grouped: one line per top-level section (about 6-8), not one per
	# key (77-92 before).
	ok "$([ "$n" -le 12 ]; echo $?)" "$1: $n grouped warnings (<= 12)"
	# The detail (-v) names each unused key: none may be one hetui reads.
	bad=$(printf '%s\n' "$RUN_OUT" | grep ': not used by hetui' |
	    sed 's/^  [^ ]*:[0-9]*: //' | grep -E "$3")
	[ -z "$bad" ]
	ok $? "$1: no warning names a key hetui honours${bad:+: $bad}"
}

check_template heterodyne_master_template.yaml two_component "$honoured_het"
check_template homodyne_static.yaml static "$honoured"
check_template homodyne_laminar_flow.yaml laminar_flow "$honoured"

done_testing
