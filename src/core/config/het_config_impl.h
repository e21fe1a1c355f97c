/*
 * het_config_impl.h: private interfaces of the configuration reader,
 * shared by het_config*.c and nothing else.
 *
 * The YAML text is parsed by libyaml into a small tree that keeps the line
 * of every node (het_config_yaml.c).  The schema readers then look keys up
 * with het_cl_get(), which marks them consumed; whatever is left unconsumed at
 * the end becomes a warning with its dotted path and line.  Each setting
 * that can later fail a cross-field check (bounds, values, frame window,
 * timeouts) records its provenance under a canonical key, so the final
 * validation can name the key and line the user wrote.
 */
#ifndef HET_CONFIG_IMPL_H
#define HET_CONFIG_IMPL_H

#include <stddef.h>

#include "het_config.h"
#include "het_error.h"

/* Longest dotted key path kept in messages. */
#define CL_PATH_MAX 192

enum het_ykind { HET_Y_NULL = 0, HET_Y_SCALAR, HET_Y_SEQ, HET_Y_MAP };

struct het_ynode {
	enum het_ykind	  kind;
	int		  line;		/* 1-based line where the node starts */
	int		  used;		/* map keys: consumed by the schema */
	char		 *text;		/* scalar (or null) text as written */
	size_t		  n;		/* sequence items or mapping pairs */
	struct het_ynode **keys;	/* mapping keys (scalars), n of them */
	struct het_ynode **vals;	/* mapping values or sequence items */
};

/* Where a setting came from, for messages of the final validation. */
struct cl_prov {
	char	canon[64];		/* "D0_ref.value", "cmc.num_chains" */
	char	path[CL_PATH_MAX];	/* key as written */
	int	line;
};

/* State of one load. */
struct cl_load {
	const char		*name;	/* file name for messages */
	struct het_config	*cfg;
	struct het_error	*err;
	struct het_ynode	*root;
	struct cl_prov		*prov;
	size_t			 nprov, cprov;
};

/* An accepted word of an enumerated key and the value it stands for. */
struct het_cl_word {
	const char	*name;
	int		 value;
};

/* het_config_yaml.c: the tree */
int het_y_parse(const char *text, size_t len, const char *name,
    struct het_ynode **root, struct het_error *err);
void het_y_free(struct het_ynode *node);

/* A candidate location of one setting (see het_cl_pick). */
struct cl_cand {
	struct het_ynode	*map;	/* the mapping, or NULL when absent */
	const char		*prefix; /* its dotted path */
	const char		*key;
};

#define C1(m, p, k)	{ { (m), (p), (k) } }
#define NC(a)		HET_ARRAY_LEN(a)

/* het_config_get.c: schema helpers (all return HET_OK or an error code) */
void het_cl_path(char *buf, const char *prefix, const char *key);
void het_cl_path_index(char *buf, const char *prefix, size_t index);
struct het_ynode *het_cl_get(struct het_ynode *map, const char *key);
struct het_ynode *het_cl_peek(struct het_ynode *map, const char *key);
struct het_ynode *het_cl_alias(struct cl_load *ld, struct het_ynode *map,
    const char *prefix, const char *const *keys, char *path);
int het_cl_err(struct cl_load *ld, int code, int line, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int het_cl_warn(struct cl_load *ld, const char *path, int line,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int het_cl_prov_set(struct cl_load *ld, const char *canon, const char *path,
    int line);
const struct cl_prov *het_cl_prov_find(const struct cl_load *ld,
    const char *canon);
int het_cl_is_null(const struct het_ynode *v);
int het_cl_want_map(struct cl_load *ld, struct het_ynode *v, const char *path);
int het_cl_want_seq(struct cl_load *ld, struct het_ynode *v, const char *path);
int het_cl_num(struct cl_load *ld, struct het_ynode *v, const char *path,
    double *out);
int het_cl_long(struct cl_load *ld, struct het_ynode *v, const char *path,
    long *out);
int het_cl_long_auto(struct cl_load *ld, struct het_ynode *v, const char *path,
    long *out);
/* A YAML boolean's value into *out (1 if v is one, 0 if not; no error). */
int het_cl_bool_value(const struct het_ynode *v, int *out);
int het_cl_bool(struct cl_load *ld, struct het_ynode *v, const char *path,
    int *out);
int het_cl_str(struct cl_load *ld, struct het_ynode *v, const char *path,
    char **out);
int het_cl_word(struct cl_load *ld, struct het_ynode *v, const char *path,
    const struct het_cl_word *words, size_t nwords, int *out);
int het_cl_numlist(struct cl_load *ld, struct het_ynode *v, const char *path,
    double **out, size_t *n);
int het_cl_report_unused(struct cl_load *ld);
int het_cl_section(struct cl_load *ld, struct het_ynode *map,
    const char *prefix,
    const char *key, struct het_ynode **out, char *path);
struct het_ynode *het_cl_pick(struct cl_load *ld, const struct cl_cand *c,
    size_t n, char *path, int *rc);
int het_cl_pick_num(struct cl_load *ld, const struct cl_cand *c, size_t n,
    const char *canon, double *out);
int het_cl_pick_long(struct cl_load *ld, const struct cl_cand *c, size_t n,
    const char *canon, int allow_auto, long *out);
int het_cl_pick_bool(struct cl_load *ld, const struct cl_cand *c, size_t n,
    int *out);
int het_cl_pick_word(struct cl_load *ld, const struct cl_cand *c, size_t n,
    const struct het_cl_word *words, size_t nwords, int *out);

/* het_config_read.c: the analysis mode */
int het_cl_read_mode(struct cl_load *ld);

/*
 * het_cl_set_text: set entry k of cfg from text in the template's
 * vocabulary (a number, "auto", a word, true/false, "null", "jac", a
 * string); path names the setting in messages.  HET_EINVAL for text that
 * is not a value of the entry's kind or an entry that is not one value
 * (a list, a mapping, the parameter blocks); HET_ENOMEM.
 * het_cl_set_defaults applies every entry's default this way
 * (het_config_setting.c).
 */
struct het_cl_key;
int het_cl_set_text(struct het_config *cfg, const struct het_cl_key *k,
    const char *path, const char *text, struct het_error *err);

/*
 * het_config_table.c: the schema table of the settings (data selection,
 * phi filtering, optimization.nlsq, optimization.cmc, output), which
 * drives the reader (het_cl_read_table), the template
 * (het_config_write.c), the validator's value checks and the editors
 * (het_config_setting.c).
 */
enum het_ck_type {
	HET_CK_NUM,		/* double */
	HET_CK_LONG,		/* long */
	HET_CK_LONG_AUTO,	/* long, "auto" = 0 */
	HET_CK_BOOL,		/* int 0/1 */
	HET_CK_WORD,		/* an int-sized enum through words */
	HET_CK_SEED,		/* unsigned long, >= 0 */
	HET_CK_STRING,		/* char *, with provenance */
	HET_CK_X_SCALE,		/* handler: "jac" or a number > 0 */
	HET_CK_X_SCALE_MAP,	/* handler: {name: scale > 0} */
	HET_CK_OUTPUT_DIR,	/* handler: output_dir or directory */
	HET_CK_NUM_SET,		/* double, and int 1 at set_off once given */
	HET_CK_NUMLIST,		/* double * and size_t count at set_off */
	HET_CK_DATA_FILE,	/* handler: file_path, folder + name */
	HET_CK_LEGACY_FRAMES,	/* handler: temporal.t_start/time_length */
	HET_CK_PHI_ALGO,	/* handler: phi_filtering.algorithm */
	HET_CK_PHI_RANGES,	/* handler: phi_filtering.target_ranges */
	HET_CK_PARAMS		/* handler: the parameter blocks and
				   priors (het_config_params.c), read
				   and written whole at their place */
};

/* The sections the table's settings live in; a parent before its
   children (HET_CK_NSEC as a parent: the document's root). */
enum het_ck_sec {
	HET_CK_DATA, HET_CK_AP, HET_CK_AP_SC, HET_CK_AP_GE, HET_CK_AP_TP,
	HET_CK_TEMPORAL, HET_CK_SCATTERING, HET_CK_PHI,
	HET_CK_OPT, HET_CK_NLSQ, HET_CK_NLSQ_MS, HET_CK_NLSQ_AD, HET_CK_CMC,
	HET_CK_CMC_SH, HET_CK_CMC_PS, HET_CK_CMC_TO, HET_CK_CMC_CO,
	HET_CK_CMC_VA, HET_CK_CMC_NL, HET_CK_CMC_RE, HET_CK_CMC_PA,
	HET_CK_OUTPUT, HET_CK_NSEC
};

#define HET_CK_HET	1	/* read by heterodyne configurations */
#define HET_CK_HOM	2	/* by homodyne ones */
#define HET_CK_BOTH	3
#define HET_CK_MAXCAND	5
#define HET_CK_MAXDOC	2

struct het_cl_section {
	int		 parent;	/* enum het_ck_sec, or HET_CK_NSEC */
	const char	*parent_path;
	const char	*key;
	const char	*path;		/* dotted, "optimization.cmc.timeout" */
	int		 depth;		/* 0 for optimization */
};

struct het_cl_key {
	const char	*canon;		/* provenance key, "cmc.num_chains" */
	enum het_ck_type type;
	size_t		 off;		/* of the field in struct het_config */
	const struct het_cl_word *words; /* HET_CK_WORD: accepted words */
	size_t		 nwords;
	unsigned	 family;	/* HET_CK_HET, HET_CK_HOM or both */
	const char	*def;		/* the default, as the template writes
					   it (het_cl_set_text reads it), or
					   NULL: none here */
	const char	*def_hom;	/* the homodyne default, NULL: def */
	struct {
		int		 sec;	/* enum het_ck_sec */
		const char	*key;
	}		 cand[HET_CK_MAXCAND]; /* locations, first wins */
	int		 tsec;		/* the template writes it here ... */
	const char	*tkey;		/* ... under this key */
	const char	*doc[HET_CK_MAXDOC]; /* comment lines before it */
	/* What the validator checks (het_config_valid.c): */
	enum het_ck_check {
		HET_CV_NONE,	/* nothing, or a check of its own */
		HET_CV_RANGE,	/* double in lo..hi, open ends as flagged */
		HET_CV_COUNT,	/* long in [lo, hi] */
		HET_CV_AUTO,	/* long >= 1, or 0 = "auto" */
		HET_CV_ZERO_OR	/* long 0 (zero says what) or [lo, hi] */
	}		 check;
	double		 lo, hi;
	unsigned char	 lo_open, hi_open;
	const char	*zero;
	size_t		 set_off;	/* NUM_SET: its int flag; NUMLIST: its
					   size_t count */
};

extern const struct het_cl_section het_cl_sections[HET_CK_NSEC];
extern const struct het_cl_key het_cl_keys[];
extern const size_t het_cl_nkeys;
/*
 * het_cl_read_table: read every entry of the table the family reads, in
 * the table's order, which puts the groups one after the other:
 * HET_CK_GROUP_DATA (experimental_data, analyzer_parameters,
 * phi_filtering: read before the parameters, which may use the angles),
 * HET_CK_GROUP_PARAMS (the parameter blocks, one entry) and
 * HET_CK_GROUP_OPT (optimization and output).  A group's sections are
 * looked up when its first entry is read.  HET_OK or an error.
 * het_cl_key_group: the group of an entry.
 */
#define HET_CK_GROUP_DATA	0
#define HET_CK_GROUP_OPT	1
#define HET_CK_GROUP_PARAMS	2
int het_cl_read_table(struct cl_load *ld);
int het_cl_key_group(const struct het_cl_key *k);
/* het_cl_section_root: the top-level section of section s. */
int het_cl_section_root(int s);
/* The canonical word of a HET_CK_WORD value ("unknown" when none);
   het_cl_canon_word: the same for the setting named canon. */
const char *het_cl_word_name(const struct het_cl_key *k, int value);
const char *het_cl_canon_word(const char *canon, int value);
/* 1 when configurations of this family read the setting. */
int het_cl_key_for(const struct het_cl_key *k, enum het_family family);

/* het_config_opt.c: the table's typed handlers, and output */
int het_cl_read_string(struct cl_load *ld, const struct het_cl_key *k,
    const struct cl_cand *c, size_t n, char **out);
int het_cl_read_x_scale(struct cl_load *ld, const struct cl_cand *c,
    size_t n);
int het_cl_read_x_scale_map(struct cl_load *ld, const struct cl_cand *c);
int het_cl_read_output_dir(struct cl_load *ld, const struct cl_cand *c,
    size_t n);
/* het_config_read.c: the data section's handlers */
int het_cl_read_data_file(struct cl_load *ld, const struct cl_cand *c);
int het_cl_read_legacy_frames(struct cl_load *ld, const struct cl_cand *c);
int het_cl_read_phi_algo(struct cl_load *ld, const struct cl_cand *c);
int het_cl_read_phi_ranges(struct cl_load *ld, const struct cl_cand *c);

/* het_config_params.c: parameter sections of both schemas */
int het_cl_read_params(struct cl_load *ld);
int het_cl_prior_parse(const char *name, enum het_prior_kind *kind);
void het_cl_prior_default(enum het_prior_kind kind, double lo, double hi,
    struct het_prior *prior);
const char *het_cl_prior_camel(enum het_prior_kind kind);

/* het_config_valid.c */
int het_cl_validate(const struct het_config *cfg, const struct cl_load *ld,
    struct het_error *err);

/* het_config.c: shared with the readers */
int het_cl_set_defaults(struct het_config *cfg, enum het_mode mode,
    struct het_error *err);
/* Append (key, line, msg) to a warning list; HET_ENOMEM on failure. */
int het_cl_warning_push(struct het_config_warning **list, size_t *n,
    const char *key, int line, const char *msg, struct het_error *err);
int het_cl_add_warning(struct het_config *cfg, const char *key, int line,
    const char *msg, struct het_error *err);

#endif /* HET_CONFIG_IMPL_H */
